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
}

/** Per-item exponential backoff: base * 2^failures, capped (client-go's ItemExponentialFailureRateLimiter). */
export class ItemExponentialFailureRateLimiter<T> implements RateLimiter<T> {
  private readonly failures = new Map<string, number>();
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;

  constructor(
    opts: ExponentialBackoffOptions = {},
    private readonly keyOf: (item: T) => string = defaultKeyOf,
  ) {
    this.baseDelayMs = opts.baseDelayMs ?? 5;
    this.maxDelayMs = opts.maxDelayMs ?? 1000_000;
  }

  when(item: T): number {
    const key = this.keyOf(item);
    const exp = this.failures.get(key) ?? 0;
    this.failures.set(key, exp + 1);
    const delay = this.baseDelayMs * Math.pow(2, exp);
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
