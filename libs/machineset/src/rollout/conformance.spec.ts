// Byte-for-byte conformance of the rollout planner with upstream's golden logs (vendored in ./testdata).
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
    if (!fs.existsSync(root))
      throw new Error(`golden logs not found at ${root} (expected libs/machineset/src/rollout/testdata)`);
  });

  it.each(shipped.map((s) => [headerName(s), s] as const))('%s', (_name, scenario) => {
    const file = goldenPath(root, scenario);
    if (!fs.existsSync(file)) throw new Error(`golden file missing: ${file}`);
    expectMatchesGolden(file, scenario);
  });

  it('covers every golden file present', () => {
    const present = ['rollingupdate', 'ondelete'].flatMap((d) =>
      fs.readdirSync(`${root}/${d}`).map((f) => `${root}/${d}/${f}`),
    );
    const covered = new Set([...shipped, ...heldOut].map((s) => goldenPath(root, s)));
    expect(present.filter((f) => !covered.has(f))).toEqual([]);
  });
});

// Scenario names of upstream's Test_RollingUpdateSequences and Test_OnDeleteSequences
// (core/reconcilers/machinedeployment, the version the vendored goldens come from).
const UPSTREAM_ROLLING_UPDATE_SEQUENCES = [
  'Regular rollout, 3 Replicas, maxSurge 1, maxUnavailable 0',
  'Regular rollout, 3 Replicas, maxSurge 0, maxUnavailable 1',
  'Regular rollout, 6 Replicas, maxSurge 3, maxUnavailable 1',
  'Regular rollout, 6 Replicas, maxSurge 1, maxUnavailable 3',
  'Regular rollout, 6 Replicas, maxSurge 10, maxUnavailable 0',
  'Regular rollout, 6 Replicas, maxSurge 0, maxUnavailable 10',
  'Regular rollout, 6 Replicas, maxSurge 3, maxUnavailable 1, scale up to 12',
  'Regular rollout, 12 Replicas, maxSurge 3, maxUnavailable 1, scale down to 6',
  'Regular rollout, 6 Replicas, maxSurge 3, maxUnavailable 1, change spec',
  'In-place rollout, 3 Replicas, maxSurge 1, MaxUnavailable 0',
  'In-place rollout, 3 Replicas, maxSurge 0, MaxUnavailable 1',
  'In-place rollout, 6 Replicas, maxSurge 3, MaxUnavailable 1',
  'In-place rollout, 6 Replicas, maxSurge 1, MaxUnavailable 3',
  'In-place rollout, 6 Replicas, maxSurge 10, MaxUnavailable 0',
  'In-place rollout, 6 Replicas, maxSurge 0, MaxUnavailable 10',
  'In-place rollout, 6 Replicas, maxSurge 3, MaxUnavailable 1, scale up to 12',
  'In-place rollout, 12 Replicas, maxSurge 3, MaxUnavailable 1, scale down to 6',
  'In-place rollout, 6 Replicas, maxSurge 3, MaxUnavailable 1, change spec',
];
const UPSTREAM_ON_DELETE_SEQUENCES = [
  '3 replicas, maxUserUnavailable 1',
  '6 replicas, maxUserUnavailable 2',
  '6 Replicas, maxUserUnavailable 1, scale up to 9',
  '12 Replicas, maxUserUnavailable 1,  scale down to 6',
  '6 Replicas, maxUserUnavailable 1, change spec',
];

const allScenarios = [...rollingUpdateScenarios, ...onDeleteScenarios, ...heldOutScenarios];
const namesOf = (strategy: string) =>
  allScenarios.filter((s) => (s.strategy ?? 'RollingUpdate') === strategy).map((s) => headerName(s));

describe('upstream sequence scenarios', () => {
  it('defines every scenario of upstream Test_RollingUpdateSequences and Test_OnDeleteSequences, and no other', () => {
    expect([...namesOf('RollingUpdate')].sort()).toEqual([...UPSTREAM_ROLLING_UPDATE_SEQUENCES].sort());
    expect([...namesOf('OnDelete')].sort()).toEqual([...UPSTREAM_ON_DELETE_SEQUENCES].sort());
  });

  // Upstream also runs every scenario with 100 random controller orders and maxIterations 150 (time-based seeds,
  // no golden file); fixed seeds keep a failure reproducible here.
  it.each(allScenarios.map((s) => [headerName(s), s] as const))(
    '%s converges for random seeds 1..100',
    (_name, scenario) => {
      const failed: string[] = [];
      for (let seed = 1; seed <= 100; seed++) {
        const r = runRolloutSimulation({ ...scenario, randomSeed: seed, maxIterations: 150 });
        if (!r.converged) failed.push(`seed ${seed}: ${r.error}`);
      }
      expect(failed).toEqual([]);
    },
  );
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
