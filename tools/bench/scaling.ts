// The rollout bench's side-by-side view of several fleet sizes: is the cost per Machine flat?
import type { Cell } from './table';

export interface PhaseTime {
  phase: string;
  seconds: number;
}

/** Time per Machine of each phase at each size, side by side, and the largest size's cost per Machine over the smallest's. */
export function scalingTable(runs: { replicas: number; results: PhaseTime[] }[]): { header: string[]; rows: Cell[][] } {
  const sorted = [...runs].sort((a, b) => a.replicas - b.replicas);
  const [small, large] = [sorted[0], sorted[sorted.length - 1]];
  const perMachine = (run: { replicas: number; results: PhaseTime[] }, phase: string) => {
    const r = run.results.find((x) => x.phase === phase);
    return r ? r.seconds / run.replicas : NaN;
  };
  const header = [
    'phase',
    ...sorted.map((r) => `s/Machine at ${r.replicas}`),
    `${large.replicas} vs ${small.replicas}`,
  ];
  const rows = small.results.map((r) => [
    r.phase,
    ...sorted.map((run) => perMachine(run, r.phase)),
    perMachine(large, r.phase) / perMachine(small, r.phase),
  ]);
  return { header, rows };
}
