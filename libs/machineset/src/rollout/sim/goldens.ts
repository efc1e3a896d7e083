// Locating and comparing golden logs (shared by the jest conformance test and tools/conformance).
import * as fs from 'fs';
import * as path from 'path';
import { defaultScenarioName, RolloutSimulationOptions } from './simulate';

/** Walks up from `start` to the workspace root (the folder holding nx.json). */
export function findRepoRoot(start: string): string {
  let dir = path.resolve(start);
  for (;;) {
    if (fs.existsSync(path.join(dir, 'nx.json'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no nx.json found above ${start}: cannot locate the repository root`);
    dir = parent;
  }
}

/**
 * `<repo root>/libs/machineset/src/rollout/testdata`: upstream's golden logs, vendored byte for byte from
 * `core/reconcilers/machinedeployment/testdata` (see the NOTICE there). Found from the repository root so that
 * tools/conformance resolves the same folder.
 */
export function goldenRoot(start: string): string {
  return path.join(findRepoRoot(start), 'libs', 'machineset', 'src', 'rollout', 'testdata');
}

export function headerName(o: RolloutSimulationOptions): string {
  const base = o.name ?? defaultScenarioName(o);
  return o.randomSeed !== undefined ? `${base}, random(${o.randomSeed})` : base;
}

/** `<dir>/<header name lower-cased>.test.log.golden`, dir by strategy. */
export function goldenPath(root: string, o: RolloutSimulationOptions): string {
  const dir = (o.strategy ?? 'RollingUpdate') === 'OnDelete' ? 'ondelete' : 'rollingupdate';
  return path.join(root, dir, `${headerName(o).toLowerCase()}.test.log.golden`);
}

/** Undefined when equal; otherwise a short report around the first differing line. */
export function describeFirstDifference(expected: string, actual: string): string | undefined {
  if (expected === actual) return undefined;
  const e = expected.split('\n');
  const a = actual.split('\n');
  let k = 0;
  while (k < e.length && k < a.length && e[k] === a[k]) k++;
  const show = (lines: string[]) =>
    lines
      .slice(Math.max(0, k - 3), k + 3)
      .map((l, j) => `${Math.max(0, k - 3) + j + 1}: ${JSON.stringify(l)}`)
      .join('\n');
  return [
    `first difference at line ${k + 1} (expected ${e.length} lines, got ${a.length})`,
    `expected: ${JSON.stringify(e[k] ?? '<end of file>')}`,
    `actual:   ${JSON.stringify(a[k] ?? '<end of file>')}`,
    '--- expected context ---',
    show(e),
    '--- actual context ---',
    show(a),
  ].join('\n');
}
