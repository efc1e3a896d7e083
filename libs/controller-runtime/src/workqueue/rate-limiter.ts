/** Decides how long an item waits before being retried (client-go's RateLimiter). */
export interface RateLimiter<T> {
  /** Delay for the next retry of `item`; counts a failure. */
  when(item: T): number;
  /** Clears the item's failure history. */
  forget(item: T): void;
  /** Failures recorded for the item since the last forget. */
  numRequeues(item: T): number;
}

export interface ExponentialBackoffOptions {
  baseDelayMs?: number;
  maxDelayMs?: number;
  /**
   * Added to every delay (still capped by maxDelayMs): Cluster API's rate-limited reconcilers retry no sooner than
   * their rate limit interval (util/controller/builder.go typedItemExponentialFailureRateLimiter). Default 0.
   */
  offsetMs?: number;
}

// First retry delay and cap of client-go's DefaultTypedControllerRateLimiter (5 ms, 1000 s), in
// util/workqueue/default_rate_limiters.go.
const DEFAULT_BASE_DELAY_MS = 5;
const DEFAULT_MAX_DELAY_MS = 1000_000;

/** Per-item exponential backoff: base * 2^failures, capped (client-go's ItemExponentialFailureRateLimiter). */
export class ItemExponentialFailureRateLimiter<T> implements RateLimiter<T> {
  private readonly failures = new Map<string, number>();
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly offsetMs: number;

  constructor(
    opts: ExponentialBackoffOptions = {},
    private readonly keyOf: (item: T) => string = defaultKeyOf,
  ) {
    this.baseDelayMs = opts.baseDelayMs ?? DEFAULT_BASE_DELAY_MS;
    this.maxDelayMs = opts.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
    this.offsetMs = opts.offsetMs ?? 0;
  }

  when(item: T): number {
    const key = this.keyOf(item);
    const exp = this.failures.get(key) ?? 0;
    this.failures.set(key, exp + 1);
    const delay = this.offsetMs + this.baseDelayMs * Math.pow(2, exp);
    return Number.isFinite(delay) ? Math.min(delay, this.maxDelayMs) : this.maxDelayMs;
  }

  forget(item: T): void {
    this.failures.delete(this.keyOf(item));
  }

  numRequeues(item: T): number {
    return this.failures.get(this.keyOf(item)) ?? 0;
  }
}

/** Strings key themselves; anything else is keyed by its JSON form (requests are small plain objects). */
export function defaultKeyOf(item: unknown): string {
  return typeof item === 'string' ? item : JSON.stringify(item);
}
