// Byte-for-byte conformance of the rollout planner with upstream's golden logs (shared/conformance/rollout).
import * as fs from 'fs';
import { describeFirstDifference, goldenPath, goldenRoot, headerName } from './sim/goldens';
import { heldOutScenarios, onDeleteScenarios, rollingUpdateScenarios } from './sim/scenarios';
import { runRolloutSimulation, RolloutSimulationOptions } from './sim/simulate';

const root = goldenRoot(__dirname);
const withRandom = (list: RolloutSimulationOptions[]) => list.flatMap((s) => [s, { ...s, randomSeed: 0 }]);
const shipped = withRandom([...rollingUpdateScenarios, ...onDeleteScenarios]);
const heldOut = withRandom(heldOutScenarios);

function expectMatchesGolden(file: string, scenario: RolloutSimulationOptions): void {
  const expected = fs.readFileSync(file, 'utf8');
  const result = runRolloutSimulation(scenario);
  const difference = describeFirstDifference(expected, result.log);
  if (difference) throw new Error(`${file}\n${difference}${result.error ? `\nsimulation error: ${result.error}` : ''}`);
  expect(result.converged).toBe(true);
}

describe('rollout planner golden logs', () => {
  it('finds the golden directory', () => {
    if (!fs.existsSync(root)) throw new Error(`golden logs not found at ${root} (expected <repo>/../shared/conformance/rollout)`);
  });

  it.each(shipped.map((s) => [headerName(s), s] as const))('%s', (_name, scenario) => {
    const file = goldenPath(root, scenario);
    if (!fs.existsSync(file)) throw new Error(`golden file missing: ${file}`);
    expectMatchesGolden(file, scenario);
  });

  it('covers every golden file present', () => {
    const present = ['rollingupdate', 'ondelete'].flatMap((d) => fs.readdirSync(`${root}/${d}`).map((f) => `${root}/${d}/${f}`));
    const covered = new Set([...shipped, ...heldOut].map((s) => goldenPath(root, s)));
    expect(present.filter((f) => !covered.has(f))).toEqual([]);
  });
});

describe('held-out scenarios (MD scaled or changed mid-rollout)', () => {
  // Their goldens are not shipped: compare byte for byte when present, otherwise require a completed rollout.
  it.each(heldOut.map((s) => [headerName(s), s] as const))('%s', (_name, scenario) => {
    const file = goldenPath(root, scenario);
    if (fs.existsSync(file)) return expectMatchesGolden(file, scenario);
    const result = runRolloutSimulation(scenario);
    expect(result.error).toBeUndefined();
    expect(result.converged).toBe(true);
  });
});
