// Compares the rollout simulation with every golden log it knows a scenario for, and lists golden files that
// have no scenario (e.g. held-out ones added later), so nothing passes silently.
import * as fs from 'fs';
import * as path from 'path';
import {
  describeFirstDifference,
  goldenPath,
  headerName,
  heldOutScenarios,
  onDeleteScenarios,
  rollingUpdateScenarios,
  runRolloutSimulation,
  RolloutSimulationOptions,
} from '@capi/machineset';

export interface GoldenCheck {
  name: string;
  file: string;
  status: 'pass' | 'fail' | 'missing';
  detail?: string;
  log?: string;
}

export interface GoldenReport {
  checks: GoldenCheck[];
  /** Golden files present in the directory that no known scenario produces. */
  unknownFiles: string[];
}

/** Shipped scenarios first, then the held-out ones (reported as missing while their golden file is absent). */
export function knownScenarios(): RolloutSimulationOptions[] {
  return [...rollingUpdateScenarios, ...onDeleteScenarios, ...heldOutScenarios].flatMap((s) => [
    s,
    { ...s, randomSeed: 0 },
  ]);
}

export function checkGoldens(root: string, scenarios: RolloutSimulationOptions[] = knownScenarios()): GoldenReport {
  if (!fs.existsSync(root)) throw new Error(`golden directory not found: ${root}`);
  const checks = scenarios.map((s): GoldenCheck => {
    const file = goldenPath(root, s);
    const result = runRolloutSimulation(s);
    const base = { name: headerName(s), file, log: result.log };
    if (!fs.existsSync(file)) return { ...base, status: 'missing', detail: 'no golden file' };
    const diff = describeFirstDifference(fs.readFileSync(file, 'utf8'), result.log);
    if (diff)
      return { ...base, status: 'fail', detail: result.error ? `${diff}\nsimulation error: ${result.error}` : diff };
    return { ...base, status: 'pass' };
  });
  const produced = new Set(checks.map((c) => c.file));
  const unknownFiles = ['rollingupdate', 'ondelete']
    .filter((d) => fs.existsSync(path.join(root, d)))
    .flatMap((d) => fs.readdirSync(path.join(root, d)).map((f) => path.join(root, d, f)))
    .filter((f) => f.endsWith('.test.log.golden') && !produced.has(f));
  return { checks, unknownFiles };
}
