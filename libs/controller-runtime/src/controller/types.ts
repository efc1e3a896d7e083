import type { InformerCache } from '../cache/cache';
import { KubeObject } from '@capi/apimachinery';
import { RateLimiter } from '../workqueue/rate-limiter';
import type { WrittenKind } from './consistency';

/** What a reconcile is about: one object of the controller's `for` kind. */
export interface Request {
  namespace?: string;
  name: string;
}

export interface Result {
  /** Requeue with rate-limited backoff. */
  requeue?: boolean;
  /** Requeue after this many milliseconds (takes precedence over requeue). */
  requeueAfterMs?: number;
}

/** Structured fields of a log line (logr's key/value pairs). */
export type LogFields = Record<string, unknown>;

/**
 * A logger with fields bound, as logr's `WithValues`. Lines go to the app's Nest logger (the manager's is pino, which
 * writes the fields as JSON keys).
 */
export interface ReconcileLogger {
  readonly fields: Readonly<LogFields>;
  log(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  debug(message: string, fields?: LogFields): void;
  /** A logger with these fields bound on top of this one's. */
  withValues(fields: LogFields): ReconcileLogger;
}

/**
 * What a reconcile gets besides its request: upstream's `ctx` (pkg/internal/controller/controller.go
 * reconcileHandler puts a logger with the controller, the object and a reconcileID into it, and cancels it when the
 * manager stops).
 */
export interface ReconcileContext {
  /** Aborted when the controller stops (manager shutdown, lost leadership): long waits should end early. */
  readonly signal: AbortSignal;
  /** Bound to controller, controllerGroup, controllerKind, the object (`<Kind>`, namespace, name) and reconcileID. */
  readonly log: ReconcileLogger;
  /** Unique per reconcile call. */
  readonly reconcileID: string;
  /**
   * The controller running this reconcile (upstream reconcilers keep it from SetupWithManager); absent when a test calls
   * the reconciler directly. Its methods do nothing without the ReconcilerRateLimiting gate, as upstream's.
   */
  readonly controller?: ControllerHandle;
}

/**
 * What a reconciler may ask of its controller (Cluster API util/controller/controller.go controllerWrapper): hold a
 * request's next reconcile back, or until the cache has seen the reconcile's own writes.
 */
export interface ControllerHandle {
  /** The request's next reconcile starts no sooner than `afterMs` from now (upstream DeferNextReconcile). */
  deferNextReconcile(req: Request, afterMs: number): void;
  /** deferNextReconcile for the request of `obj` (upstream DeferNextReconcileForObject). */
  deferNextReconcileForObject(obj: KubeObject, afterMs: number): void;
  /**
   * The next reconcile of `reconciled` waits, requeued every 100 ms, until the cache's informer for `written` has seen
   * `resourceVersion`: the version the server gave this reconcile's write (upstream DeferNextReconcileUntilCacheUpToDate).
   */
  deferNextReconcileUntilCacheUpToDate(reconciled: KubeObject, written: WrittenKind, resourceVersion: string): void;
  /**
   * Forgets the writes recorded for `req`, when its object is gone (`uid` empty: whatever its uid) or deleted
   * (upstream ClearConsistencyStore).
   */
  clearConsistencyStore(req: Request, uid?: string): void;
}

/** A thrown error means "retry with backoff"; success forgets the item's backoff. */
export interface Reconciler {
  reconcile(req: Request, ctx: ReconcileContext): Promise<Result | void>;
}

export interface GroupVersionKind {
  apiVersion: string;
  kind: string;
}

/** Filters events; a missing function means "let it through". */
export interface Predicate<T extends KubeObject = KubeObject> {
  create?(obj: T): boolean;
  update?(oldObj: T, newObj: T): boolean;
  delete?(obj: T): boolean;
}

export interface ForSpec extends GroupVersionKind {
  predicates?: Predicate[];
}

/** Objects whose controller ownerReference points to a `for` object: their events reconcile the owner. */
export interface OwnsSpec extends GroupVersionKind {
  predicates?: Predicate[];
}

/**
 * What a watch's map function reads: the manager's cache, passed in as upstream's mappers close over the manager's
 * client (handler.EnqueueRequestsFromMapFunc; e.g. MachineToMachineSets in
 * internal/controllers/machineset/machineset_controller.go lists MachineSets through it).
 */
export interface MapContext {
  /** Map functions are synchronous: they read stored objects with `listStored` (empty before the kind synced). */
  readonly cache: Pick<InformerCache, 'listStored'>;
}

/** Any other kind, mapped to requests by a function. */
export interface WatchSpec extends GroupVersionKind {
  map(obj: KubeObject, ctx: MapContext): Request[];
  predicates?: Predicate[];
  /**
   * The cache whose informer is watched instead of the manager's (controller-runtime's WatchesRawSource with a
   * source.Kind on another cache); the manager starts and syncs it with its own.
   */
  cache?: InformerCache;
}

export interface ControllerOptions {
  /** Unique name; metrics label and queue name. */
  name: string;
  for: ForSpec;
  owns?: OwnsSpec[];
  watches?: WatchSpec[];
  /** Applied to every source (controller-runtime's WithEventFilter). */
  predicates?: Predicate[];
  /**
   * Coalesce events of owned/watched kinds: such an event enqueues its request after a delay of `factor` times that
   * request's last reconcile duration (capped at `maxDelayMs`), so a burst of child events costs one reconcile and an
   * expensive reconcile (e.g. a MachineDeployment over 1,000 Machines) cannot turn into a busy loop. Cheap reconciles
   * get (almost) no delay. Status-only updates of the `for` object (its reconciler's own status writes, see
   * statusOnlyUpdate) are coalesced the same way; its other events and requeues are not delayed. Default: off.
   */
  coalesceSecondaryEvents?: { factor: number; maxDelayMs: number };
  /** Parallel reconciles (never two on one request); default 1. */
  maxConcurrentReconciles?: number;
  rateLimiter?: RateLimiter<Request>;
  /**
   * With the ReconcilerRateLimiting gate: the least time between two reconciles of one request (upstream
   * WithRateLimitInterval, which only takes intervals longer than the 1 s default).
   */
  rateLimitIntervalMs?: number;
}
