// Reconciles per controller per phase, from the controller-runtime metrics the manager already keeps
// (controller_runtime_reconcile_total, controller_runtime_reconcile_time_seconds): shows where O(N) reconciles of
// O(N) work happen, without instrumenting the controllers.
import { samplesOf } from './metric-samples';
import type { Cell } from './table';

/** Per controller: reconciles (all results) and the sum of their wall-clock durations (overlapping when concurrent). */
export type ReconcileCounts = Record<string, { reconciles: number; seconds: number }>;

/** The counters in the manager's /metrics text now; subtract two snapshots with reconcileDelta. */
export function reconcileSnapshot(metricsText: string): ReconcileCounts {
  const out: ReconcileCounts = {};
  const entry = (controller: string) => (out[controller] ??= { reconciles: 0, seconds: 0 });
  for (const v of samplesOf(metricsText, 'controller_runtime_reconcile_total'))
    entry(v.labels.controller).reconciles += v.value;
  for (const v of samplesOf(metricsText, 'controller_runtime_reconcile_time_seconds_sum'))
    entry(v.labels.controller).seconds += v.value;
  return out;
}

/** after − before, per controller; controllers without reconciles in between are left out. */
export function reconcileDelta(before: ReconcileCounts, after: ReconcileCounts): ReconcileCounts {
  const out: ReconcileCounts = {};
  for (const [controller, a] of Object.entries(after)) {
    const b = before[controller] ?? { reconciles: 0, seconds: 0 };
    const reconciles = a.reconciles - b.reconciles;
    if (reconciles > 0) out[controller] = { reconciles, seconds: a.seconds - b.seconds };
  }
  return out;
}

/** One row per controller, most reconciles first: per phase, reconciles, reconciles per Machine, summed wall seconds. */
export function reconcileRows(phases: { reconciles: ReconcileCounts }[], replicas: number): Cell[][] {
  const controllers = [...new Set(phases.flatMap((p) => Object.keys(p.reconciles)))];
  const total = (c: string) => phases.reduce((n, p) => n + (p.reconciles[c]?.reconciles ?? 0), 0);
  return controllers
    .sort((a, b) => total(b) - total(a) || (a < b ? -1 : 1))
    .map((c) => [
      c,
      ...phases.flatMap((p) => {
        const r = p.reconciles[c] ?? { reconciles: 0, seconds: 0 };
        return [r.reconciles, r.reconciles / replicas, r.seconds];
      }),
    ]);
}
