import { Registry } from 'prom-client';
import { InformerCache } from '../cache/cache';
import { type Clock, realClock, sleep, KubeObject } from '@capi/apimachinery';
import { WorkQueue } from '../workqueue/workqueue';
import { controllerLogger, logReconcileError, reconcileContext } from './logger';
import { ReconcileMetrics } from './metrics';
import { controllerOwnerRequests, requestFor } from './mapping';
import { DEFAULT_RECONCILE_RATE_LIMIT_MS, ReconcileRateLimit } from './rate-limit';
import { ConsistencyError, ConsistencyStore } from './consistency';
import { ItemExponentialFailureRateLimiter } from '../workqueue/rate-limiter';
import { allowsCreate, allowsDelete, allowsUpdate, statusOnlyUpdate } from './predicates';
import {
  ControllerHandle,
  ControllerOptions,
  MapContext,
  Predicate,
  ReconcileLogger,
  Reconciler,
  Request,
  Result,
} from './types';

export type ReconcileOutcome = 'success' | 'error' | 'requeue' | 'requeue_after';

/** Queue action for a reconcile outcome (pure: the controller applies it). */
export function decideRequeue(result: Result | void, error: unknown): { outcome: ReconcileOutcome; afterMs?: number } {
  if (error !== undefined) return { outcome: 'error' };
  if (result && result.requeueAfterMs && result.requeueAfterMs > 0)
    return { outcome: 'requeue_after', afterMs: result.requeueAfterMs };
  if (result && result.requeue) return { outcome: 'requeue' };
  return { outcome: 'success' };
}

/**
 * Delay for a request enqueued by an owned/watched object's event (see ControllerOptions.coalesceSecondaryEvents):
 * 0 means enqueue now. Pure, so the policy is unit-tested apart from the queue.
 */
export function coalesceDelayMs(
  policy: ControllerOptions['coalesceSecondaryEvents'],
  lastReconcileMs: number | undefined,
): number {
  if (!policy || lastReconcileMs === undefined) return 0;
  const delay = Math.min(policy.maxDelayMs, Math.round(policy.factor * lastReconcileMs));
  return delay >= 5 ? delay : 0; // below timer resolution: not worth a timer
}

export interface ControllerDeps {
  cache: InformerCache;
  registry?: Registry;
  clock?: Clock;
  /** Cluster API's ReconcilerRateLimiting gate (see ./rate-limit); off when omitted. */
  reconcilerRateLimiting?: boolean;
  /** The interval of controllers that set none; default 1 s (upstream's). */
  rateLimitIntervalMs?: number;
}

/** How long stop() waits for running reconciles (controller-runtime's default GracefulShutdownTimeout, 30 s). */
export const DEFAULT_GRACEFUL_SHUTDOWN_TIMEOUT_MS = 30_000;

const requestKey = (r: Request) => `${r.namespace ?? ''}/${r.name}`;

/** How soon a reconcile skipped for a stale cache is retried (upstream requeueDurationStaleCache). */
export const STALE_CACHE_REQUEUE_MS = 100;
/** Upstream logs "Cache stale" at most this often (atMostEvery10Seconds). */
const STALE_CACHE_LOG_EVERY_MS = 10_000;

/** Feeds a work queue from informer events and runs the reconciler on it with bounded concurrency. */
export class Controller {
  readonly name: string;
  readonly queue: WorkQueue<Request>;
  private readonly log: ReconcileLogger;
  private readonly clock: Clock;
  /** Aborted by stop(): the signal of every reconcile's context. */
  private readonly stopping = new AbortController();
  private readonly unsubscribe: (() => void)[] = [];
  private workers: Promise<void>[] = [];
  /** Last reconcile duration per request key, for coalesceSecondaryEvents. */
  private readonly lastDurationMs = new Map<string, number>();
  private readonly metrics?: ReconcileMetrics;
  private readonly rateLimit?: ReconcileRateLimit;
  /** With the ReconcilerRateLimiting gate, as upstream's reconcilerWrapper. */
  private readonly consistency?: ConsistencyStore;
  private lastStaleLogAt = -Infinity;
  /** What reconcilers get as ReconcileContext.controller. */
  readonly handle: ControllerHandle;

  constructor(
    readonly options: ControllerOptions,
    private readonly reconciler: Reconciler,
    private readonly deps: ControllerDeps,
  ) {
    if (!options.name) throw new Error('controller name is required');
    if (!options.for?.apiVersion || !options.for?.kind)
      throw new Error(`controller ${options.name}: "for" needs apiVersion and kind`);
    this.name = options.name;
    this.clock = deps.clock ?? realClock;
    this.log = controllerLogger(options.name, options.for);
    let rateLimiter = options.rateLimiter;
    if (deps.reconcilerRateLimiting) {
      const interval = options.rateLimitIntervalMs ?? deps.rateLimitIntervalMs ?? DEFAULT_RECONCILE_RATE_LIMIT_MS;
      this.rateLimit = new ReconcileRateLimit(interval, this.clock);
      this.consistency = new ConsistencyStore(deps.cache);
      // A failed reconcile is retried no sooner than the interval either (upstream builder.go).
      rateLimiter ??= new ItemExponentialFailureRateLimiter<Request>({ offsetMs: interval }, requestKey);
    }
    this.queue = new WorkQueue<Request>({
      name: options.name,
      clock: this.clock,
      registry: deps.registry,
      rateLimiter,
      keyOf: requestKey,
    });
    if (deps.registry) this.metrics = new ReconcileMetrics(deps.registry, this.name);
    this.handle = this.makeHandle();
  }

  private makeHandle(): ControllerHandle {
    const deferNextReconcile = (req: Request, afterMs: number) => this.rateLimit?.deferNext(requestKey(req), afterMs);
    return {
      deferNextReconcile,
      deferNextReconcileForObject: (obj, afterMs) => deferNextReconcile(requestFor(obj), afterMs),
      deferNextReconcileUntilCacheUpToDate: (reconciled, written, resourceVersion) =>
        this.consistency?.wroteAt(
          requestKey(requestFor(reconciled)),
          reconciled.metadata.uid ?? '',
          written,
          resourceVersion,
        ),
      clearConsistencyStore: (req, uid) => this.consistency?.clear(requestKey(req), uid),
    };
  }

  /** The kinds this controller reads events from (the manager starts their informers). */
  sources(): { apiVersion: string; kind: string }[] {
    return [this.options.for, ...(this.options.owns ?? []), ...(this.options.watches ?? [])];
  }

  /** Subscribes to the informers and starts the workers. */
  start(): void {
    const o = this.options;
    const global = o.predicates ?? [];
    this.watch(
      o.for.apiVersion,
      o.for.kind,
      [...global, ...(o.for.predicates ?? [])],
      (obj) => [requestFor(obj)],
      false,
    );
    for (const owned of o.owns ?? []) {
      this.watch(
        owned.apiVersion,
        owned.kind,
        [...global, ...(owned.predicates ?? [])],
        (obj) => controllerOwnerRequests(obj, o.for),
        true,
      );
    }
    const mapContext: MapContext = { cache: this.deps.cache };
    for (const w of o.watches ?? [])
      this.watch(
        w.apiVersion,
        w.kind,
        [...global, ...(w.predicates ?? [])],
        (obj) => w.map(obj, mapContext),
        true,
        w.cache,
      );
    const n = Math.max(1, o.maxConcurrentReconciles ?? 1);
    this.metrics?.started(n);
    this.workers = Array.from({ length: n }, () => this.work());
  }

  /**
   * Stops intake, aborts the running reconciles' signal and waits up to timeoutMs for them; returns false if some were
   * still running.
   */
  async stop(timeoutMs = DEFAULT_GRACEFUL_SHUTDOWN_TIMEOUT_MS): Promise<boolean> {
    this.unsubscribe.splice(0).forEach((u) => u());
    this.stopping.abort(new Error(`controller ${this.name} stopped`));
    const abort = new AbortController();
    const drained = await Promise.race([
      this.queue.shutDownWithDrain().then(() => true),
      sleep(this.clock, timeoutMs, abort.signal).then(() => false),
    ]);
    abort.abort();
    if (drained) await Promise.all(this.workers);
    else this.log.warn(`stopped with ${this.queue.processingCount()} reconcile(s) still running after ${timeoutMs}ms`);
    return drained;
  }

  private watch(
    apiVersion: string,
    kind: string,
    predicates: Predicate[],
    toRequests: (obj: KubeObject) => Request[],
    secondary: boolean,
    cache: InformerCache = this.deps.cache,
  ): void {
    const informer = cache.informerFor(apiVersion, kind);
    const coalescing = this.options.coalesceSecondaryEvents;
    const secondaryPolicy = secondary ? coalescing : undefined;
    const enqueue = (objs: KubeObject[], policy: ControllerOptions['coalesceSecondaryEvents']) => {
      for (const obj of objs) {
        for (const req of toRequests(obj)) {
          const delay = coalesceDelayMs(policy, this.lastDurationMs.get(requestKey(req)));
          if (delay > 0) this.queue.addAfter(req, delay);
          else this.queue.add(req);
        }
      }
    };
    this.unsubscribe.push(
      informer.addEventHandler({
        onAdd: (obj) => predicates.every((p) => allowsCreate(p, obj)) && enqueue([obj], secondaryPolicy),
        // Old and new may map to different requests (e.g. an owner reference changed): enqueue both.
        // A status-only update of a `for` object (nearly always the reconciler's own status write) is coalesced like
        // a child event: else each status write starts the next reconcile at once and child events are never batched.
        onUpdate: (old, obj) =>
          predicates.every((p) => allowsUpdate(p, old, obj)) &&
          enqueue([old, obj], secondary || (coalescing && statusOnlyUpdate(old, obj)) ? coalescing : undefined),
        onDelete: (obj) => {
          if (!secondary) this.lastDurationMs.delete(requestKey(requestFor(obj)));
          if (predicates.every((p) => allowsDelete(p, obj))) enqueue([obj], secondaryPolicy);
        },
      }),
    );
  }

  private async work(): Promise<void> {
    for (;;) {
      const req = await this.queue.get();
      if (req === undefined) return;
      this.metrics?.workerBusy();
      try {
        await this.reconcileOne(req);
      } finally {
        this.metrics?.workerIdle();
        this.queue.done(req);
      }
    }
  }

  private async reconcileOne(req: Request): Promise<void> {
    // Too soon after this request's last reconcile: skipped (not a reconcile, so not in the metrics) and requeued.
    const key = requestKey(req);
    const wait = this.rateLimit?.waitMs(key) ?? 0;
    if (wait > 0) return this.queue.addAfter(req, wait);
    // The informers have not yet seen what this request's last reconcile wrote: skipped too, without holding the
    // interval (upstream reconcilerWrapper checks the consistency store before it adds the reconcileCache entry).
    const stale = this.consistency?.ensureReady(key) ?? [];
    if (stale.length > 0) return this.staleCache(req, stale);
    this.rateLimit?.started(key);
    const started = this.clock.now();
    let result: Result | void = undefined;
    let error: unknown = undefined;
    const ctx = reconcileContext(this.log, this.options.for.kind, req, this.stopping.signal, this.handle);
    try {
      result = await this.reconciler.reconcile({ ...req }, ctx);
    } catch (e) {
      error = e ?? new Error('reconcile threw undefined');
    }
    const elapsedMs = this.clock.now() - started;
    if (this.options.coalesceSecondaryEvents) this.lastDurationMs.set(key, elapsedMs);
    const decision = decideRequeue(result, error);
    this.metrics?.reconciled(decision.outcome, elapsedMs / 1000, error);
    switch (decision.outcome) {
      case 'error':
        logReconcileError(ctx.log, error);
        this.queue.addRateLimited(req);
        break;
      case 'requeue_after':
        this.queue.forget(req);
        this.queue.addAfter(req, this.rateLimit?.requeueAfter(key, decision.afterMs!) ?? decision.afterMs!);
        break;
      case 'requeue':
        this.queue.addRateLimited(req);
        break;
      case 'success':
        this.queue.forget(req);
        break;
    }
  }

  private staleCache(req: Request, stale: ConsistencyError[]): void {
    for (const s of stale) this.metrics?.staleCacheSkipped(s.kind);
    const now = this.clock.now();
    if (now - this.lastStaleLogAt >= STALE_CACHE_LOG_EVERY_MS) {
      this.lastStaleLogAt = now;
      this.log.debug('Cache stale, reconciles are requeued until the cache is up-to-date', {
        stale: stale.map((s) => `${s.kind}, writtenRV: ${s.wroteRV}, observedRV: ${s.readRV}`).join('; '),
      });
    }
    this.queue.addAfter(req, STALE_CACHE_REQUEUE_MS);
  }
}
