import type { PhaseResult } from './rollout';
import { comparisonTable } from './rollout-compare';

const phase = (
  name: string,
  seconds: number,
  writes: number,
  rssMiB: number,
  othersRssMiB: Record<string, number>,
  cpuSeconds = { self: 0, others: {} as Record<string, number> },
): PhaseResult => ({
  phase: name,
  seconds,
  writes,
  rssMiB,
  othersRssMiB,
  machineWrites: writes,
  byResource: {},
  byManager: {},
  noopByManager: {},
  failedByManager: {},
  kept: 0,
  replaced: 0,
  reconciles: {},
  cpuSeconds,
});

describe('embedded vs kube table', () => {
  it("puts each phase's seconds, writes per Machine and peak RSS of both targets side by side", () => {
    const embedded = [
      phase('create', 3, 2000, 300, { 'workload servers': 90 }, { self: 4, others: { 'workload servers': 1 } }),
      phase('in place', 5, 2100, 350, {}),
    ];
    const kube = [
      phase(
        'create',
        6,
        2200,
        200,
        { 'kube-apiserver': 400, etcd: 80, 'workload servers': 95 },
        { self: 3, others: { 'kube-apiserver': 5, etcd: 1.5, 'workload servers': 1 } },
      ),
    ];
    const { header, rows } = comparisonTable(100, embedded, kube);
    expect(rows.every((r) => r.length === header.length)).toBe(true);
    expect(rows[0]).toEqual(['create', 3, 6, 20, 22, 300, 200, 400, 80, 90, 95, 4, 3, 6.5]);
    expect(rows[1]).toEqual(['in place', 5, '-', 21, '-', 350, '-', '-', '-', '-', '-', 0, '-', '-']);
  });
});
