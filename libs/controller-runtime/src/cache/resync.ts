// The cache's periodic resync (controller-runtime's cache.Options.SyncPeriod, upstream's --sync-period): every
// informer re-delivers what it holds as updates (SharedInformer.resync), so every controller reconciles every watched
// object at least that often and corrects drift no event reported. The Nest module schedules it (nest/cache-resync.ts).

/** controller-runtime's default SyncPeriod when none is given (pkg/cache/cache.go: defaultSyncPeriod, 10 hours). */
export const DEFAULT_SYNC_PERIOD_MS = 10 * 60 * 60 * 1000;

/**
 * One informer's resync period: `syncPeriodMs` times a factor in [0.9, 1.1), drawn once per informer so that kinds do
 * not resync, and their controllers reconcile everything, in lock-step (controller-runtime's calculateResyncPeriod,
 * pkg/cache/internal/informers.go).
 */
export function jitteredResyncPeriod(syncPeriodMs: number, random: () => number = Math.random): number {
  return syncPeriodMs * (random() / 5 + 0.9);
}
