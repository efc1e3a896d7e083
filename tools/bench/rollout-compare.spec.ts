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
  clientRequests: {},
});

describe('embedded vs kube table', () => {
  it("puts each phase's seconds, writes per Machine, the manager's and the API server's CPU and peak RSS side by side", () => {
    const embedded = [
      phase(
        'create',
        3,
        2000,
        30,
        { manager: 300, 'API server': 250, 'workload servers': 90 },
        { self: 1, others: { manager: 4, 'API server': 3, 'workload servers': 1 } },
      ),
      phase('in place', 5, 2100, 35, { manager: 350 }, { self: 1, others: { manager: 6 } }),
    ];
    const kube = [
      phase(
        'create',
        6,
        2200,
        40,
        { manager: 280, 'kube-apiserver': 400, etcd: 80, 'workload servers': 95 },
        { self: 3, others: { manager: 5, 'kube-apiserver': 5, etcd: 1.5, 'workload servers': 1 } },
      ),
    ];
    const { header, rows } = comparisonTable(100, embedded, kube);
    expect(rows.every((r) => r.length === header.length)).toBe(true);
    expect(rows[0]).toEqual(['create', 3, 6, 20, 22, 4, 5, 300, 280, 3, 6.5, 250, 400, 80]);
    expect(rows[1]).toEqual(['in place', 5, '-', 21, '-', 6, '-', 350, '-', '-', '-', '-', '-', '-']);
  });
});
