import { KubeObject } from '../client/types';
import { RateLimiter } from '../workqueue/rate-limiter';

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

/** A thrown error means "retry with backoff"; success forgets the item's backoff. */
export interface Reconciler {
  reconcile(req: Request): Promise<Result | void>;
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

/** Any other kind, mapped to requests by a function. */
export interface WatchSpec extends GroupVersionKind {
  map(obj: KubeObject): Request[];
  predicates?: Predicate[];
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
}
