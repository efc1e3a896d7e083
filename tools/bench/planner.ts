// Benchmark 1: cost of one RolloutPlanner step over large MachineDeployments (should scale near linearly).
import { REVISION_ANNOTATION, UPDATE_IN_PROGRESS_ANNOTATION } from '@capi/api';
import { planRollingUpdateSync, type MachineLike, type MachineSetLike, type RolloutSnapshot } from '@capi/machineset';
import { renderTable, type Cell } from './table';

export type PlannerScenario = 'start' | 'mid';

const template = (version: string) => ({
  spec: {
    clusterName: 'c1',
    version,
    bootstrap: { configRef: { apiGroup: 'bootstrap.cluster.x-k8s.io', kind: 'KubeadmConfigTemplate', name: 'bt' } },
    infrastructureRef: {
      apiGroup: 'infrastructure.cluster.x-k8s.io',
      kind: 'InMemoryMachineTemplate',
      name: `it-${version}`,
    },
  },
});

function machineSet(name: string, version: string, replicas: number, revision: string): MachineSetLike {
  return {
    metadata: {
      name,
      namespace: 'ns',
      annotations: { [REVISION_ANNOTATION]: revision },
      creationTimestamp: `2026-01-0${revision}T00:00:00Z`,
    },
    spec: { replicas, template: template(version) },
    status: { replicas, availableReplicas: replicas, upToDateReplicas: version === 'v2' ? replicas : 0 },
  };
}

function machines(owner: string, count: number, updatingEvery = 0): MachineLike[] {
  return Array.from({ length: count }, (_, i): MachineLike => ({
    metadata: {
      name: `${owner}-${i}`,
      namespace: 'ns',
      annotations:
        updatingEvery > 0 && i % updatingEvery === 0
          ? { [UPDATE_IN_PROGRESS_ANNOTATION]: '' }
          : ({} as Record<string, string>),
      ownerReferences: [{ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'MachineSet', name: owner, controller: true }],
    },
  }));
}

/**
 * A MachineDeployment of `size` Machines whose template moved from v1 to v2.
 * 'start': all Machines still on the old MachineSet; 'mid': half moved to the new one, every 10th being updated in place.
 */
export function buildRolloutSnapshot(size: number, scenario: PlannerScenario): RolloutSnapshot {
  if (!Number.isInteger(size) || size < 2) throw new Error(`size must be an integer >= 2, got ${size}`);
  const md = {
    metadata: { name: 'md', namespace: 'ns' },
    spec: {
      replicas: size,
      template: template('v2'),
      rollout: { strategy: { type: 'RollingUpdate' as const, rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } },
    },
  };
  if (scenario === 'start')
    return { md, machineSets: [machineSet('md-old', 'v1', size, '1')], machines: machines('md-old', size) };
  const half = Math.floor(size / 2);
  return {
    md,
    machineSets: [machineSet('md-old', 'v1', size - half, '1'), machineSet('md-new', 'v2', half, '2')],
    machines: [...machines('md-old', size - half), ...machines('md-new', half, 10)],
  };
}

export function planOnce(snapshot: RolloutSnapshot) {
  return planRollingUpdateSync(snapshot, { inPlaceUpdatesEnabled: true, canUpdateMachineSetInPlace: () => true });
}

/** Median milliseconds of one plan over at least `minRuns` runs and `minMs` of total time. */
export function timePlan(snapshot: RolloutSnapshot, minRuns = 5, minMs = 300): { msPerPlan: number; runs: number } {
  for (let i = 0; i < 2; i++) planOnce(snapshot); // warm-up (JIT)
  const samples: number[] = [];
  let total = 0;
  while (samples.length < minRuns || total < minMs) {
    const t = process.hrtime.bigint();
    planOnce(snapshot);
    const ms = Number(process.hrtime.bigint() - t) / 1e6;
    samples.push(ms);
    total += ms;
  }
  samples.sort((a, b) => a - b);
  return { msPerPlan: samples[Math.floor(samples.length / 2)], runs: samples.length };
}

export async function runPlannerBench(args: string[]): Promise<number> {
  const sizes = args.length ? args.map(Number) : [1000, 10000];
  if (sizes.some((s) => !Number.isInteger(s) || s < 2))
    throw new Error(`usage: planner [sizes...] (integers >= 2), got ${args.join(' ')}`);
  const rows: Cell[][] = [];
  for (const scenario of ['start', 'mid'] as const) {
    let base: number | undefined;
    for (const size of sizes) {
      const snapshot = buildRolloutSnapshot(size, scenario);
      const { msPerPlan, runs } = timePlan(snapshot);
      base ??= msPerPlan;
      const intents = [...planOnce(snapshot).scaleIntents].map(([n, r]) => `${n}=${r}`).join(' ');
      rows.push([scenario, size, runs, msPerPlan, msPerPlan / base / (size / sizes[0]), intents]);
    }
  }
  process.stdout.write(`RolloutPlanner.planRollingUpdateSync (in-place on, maxSurge 1, maxUnavailable 0)\n`);
  process.stdout.write(
    renderTable(['scenario', 'machines', 'runs', 'ms/plan', `cost/machine vs ${sizes[0]}`, 'scale intents'], rows),
  );
  const ratios = ['start', 'mid'].map((s) => {
    const r = rows.filter((row) => row[0] === s);
    return `${s}: ${sizes[sizes.length - 1]}/${sizes[0]} time ratio ${((r[r.length - 1][3] as number) / (r[0][3] as number)).toFixed(2)} (linear = ${(sizes[sizes.length - 1] / sizes[0]).toFixed(0)})`;
  });
  process.stdout.write(`${ratios.join('\n')}\n`);
  return 0;
}
