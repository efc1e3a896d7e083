// Cluster API's reconciler rate limiting (util/controller/controller.go reconcilerWrapper, feature gate
// ReconcilerRateLimiting: GA and on by default): a request is reconciled at most once per interval, however many
// events arrive meanwhile. A burst of child events then costs one reconcile, and an object whose status summarises
// thousands of others (a Cluster over its Machines) is not recomputed on every one of their changes.
import type { PassiveClock } from '@capi/apimachinery';

/**
 * Upstream's default interval (builder.go), which ignores shorter ones. Not enforced here: tests set shorter intervals
 * through the Manager, as upstream's tests override the MachineHealthCheck's.
 */
export const DEFAULT_RECONCILE_RATE_LIMIT_MS = 1000;

/** How often (in admissions) entries whose time has passed are dropped, as upstream's reconcileCache expires them. */
const SWEEP_EVERY = 1024;

export class ReconcileRateLimit {
  /** Per request key: the earliest start of its next reconcile (upstream reconcileCacheEntry.ReconcileAfter). */
  private readonly after = new Map<string, number>();
  private admitted = 0;

  constructor(
    readonly intervalMs: number,
    private readonly clock: PassiveClock,
  ) {}

  /** 0 when the request may be reconciled now; otherwise how long it must wait (it is skipped and requeued). */
  waitMs(key: string): number {
    const after = this.after.get(key);
    const left = after === undefined ? 0 : after - this.clock.now();
    return left > 0 ? left : 0;
  }

  /** A reconcile of the request starts now: its next one is held back one interval. */
  started(key: string): void {
    const now = this.clock.now();
    if (++this.admitted % SWEEP_EVERY === 0) this.sweep(now);
    this.after.set(key, now + this.intervalMs);
  }

  /**
   * The request's next reconcile starts no sooner than `afterMs` from now, whatever was set before, earlier or later
   * (upstream DeferNextReconcile adds the entry over the one its wrapper set).
   */
  deferNext(key: string, afterMs: number): void {
    this.after.set(key, this.clock.now() + afterMs);
  }

  /**
   * A reconcile's RequeueAfter, raised to the time its next reconcile is held back, or to one interval when that has
   * passed (upstream: a shorter requeue would only be skipped).
   */
  requeueAfter(key: string, requestedMs: number): number {
    const left = (this.after.get(key) ?? 0) - this.clock.now();
    return Math.max(requestedMs, left > 0 ? left : this.intervalMs);
  }

  /** Requests with an entry (for tests). */
  size(): number {
    return this.after.size;
  }

  private sweep(now: number): void {
    for (const [key, after] of this.after) if (after <= now) this.after.delete(key);
  }
}
