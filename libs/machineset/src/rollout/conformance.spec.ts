// Byte-for-byte conformance of the rollout planner with upstream's golden logs (shared/conformance/rollout).
import * as fs from 'fs';
import { describeFirstDifference, goldenPath, goldenRoot, headerName } from './sim/goldens';
import { onDeleteScenarios, rollingUpdateScenarios } from './sim/scenarios';
import { runRolloutSimulation, RolloutSimulationOptions } from './sim/simulate';

const root = goldenRoot(__dirname);

const scenarios: RolloutSimulationOptions[] = [...rollingUpdateScenarios, ...onDeleteScenarios].flatMap((s) => [s, { ...s, randomSeed: 0 }]);

describe('rollout planner golden logs', () => {
  it('finds the golden directory', () => {
    if (!fs.existsSync(root)) throw new Error(`golden logs not found at ${root} (expected <repo>/../shared/conformance/rollout)`);
  });

  it.each(scenarios.map((s) => [headerName(s), s] as const))('%s', (_name, scenario) => {
    const file = goldenPath(root, scenario);
    if (!fs.existsSync(file)) throw new Error(`golden file missing: ${file}`);
    const expected = fs.readFileSync(file, 'utf8');
    const result = runRolloutSimulation(scenario);
    const difference = describeFirstDifference(expected, result.log);
    if (difference) throw new Error(`${file}\n${difference}${result.error ? `\nsimulation error: ${result.error}` : ''}`);
    expect(result.converged).toBe(true);
  });

  it('covers every shipped golden file', () => {
    const shipped = ['rollingupdate', 'ondelete'].flatMap((d) => fs.readdirSync(`${root}/${d}`).map((f) => `${root}/${d}/${f}`));
    const covered = new Set(scenarios.map((s) => goldenPath(root, s)));
    expect(shipped.filter((f) => !covered.has(f))).toEqual([]);
  });
});
