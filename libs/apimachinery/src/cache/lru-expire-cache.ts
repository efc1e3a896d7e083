// A size-bounded cache whose entries expire (k8s.io/apimachinery/pkg/util/cache/lruexpirecache.go), stored in
// lru-cache's LRUCache. Expiry is checked against an injectable clock on every read rather than with lru-cache's own
// TTL timers, so a fake clock moves it exactly.
import { LRUCache } from 'lru-cache';
import { realClock, type PassiveClock } from '../clock/clock';

export interface LRUExpireCacheOptions {
  /** Most entries kept: adding one more evicts the entry added (or re-added) longest ago. */
  max: number;
  clock?: PassiveClock;
}

interface Entry<V> {
  value: V;
  expiresAt: number;
}

/**
 * Entries expire `ttlMs` after their add(), and are evicted oldest add() first when the cache is full. Reads do not
 * reorder entries: with one TTL for every entry, the oldest entry is also the first to expire.
 */
export class LRUExpireCache<V> {
  private readonly lru: LRUCache<string, Entry<V>>;
  private readonly clock: PassiveClock;

  constructor(opts: LRUExpireCacheOptions) {
    if (!Number.isInteger(opts.max) || opts.max < 1)
      throw new Error(`LRUExpireCache: max must be a positive integer, got ${opts.max}`);
    // A count bound through maxSize (every entry size 1), not `max`: with `max`, lru-cache preallocates its arrays
    // for that many entries up front (about 40 bytes each), which a 250,000-entry SSA cache pays while nearly empty.
    this.lru = new LRUCache({ maxSize: opts.max, sizeCalculation: () => 1 });
    this.clock = opts.clock ?? realClock;
  }

  /**
   * Adds or replaces `key`, expiring `ttlMs` from now, as the newest entry. Expired entries at the old end are
   * dropped first (all of them when every entry has the same TTL), so the size stays the live count.
   */
  add(key: string, value: V, ttlMs: number): void {
    const now = this.clock.now();
    for (;;) {
      const oldest = this.lru.rkeys().next();
      if (oldest.done || this.lru.peek(oldest.value)!.expiresAt > now) break;
      this.lru.delete(oldest.value);
    }
    this.lru.set(key, { value, expiresAt: now + ttlMs });
  }

  /** The value of `key`, or undefined when absent or expired (an expired entry is dropped). */
  get(key: string): V | undefined {
    const e = this.lru.peek(key);
    if (!e) return undefined;
    if (e.expiresAt <= this.clock.now()) {
      this.lru.delete(key);
      return undefined;
    }
    return e.value;
  }

  remove(key: string): void {
    this.lru.delete(key);
  }

  /** Drops every expired entry; returns how many. */
  purgeExpired(): number {
    const now = this.clock.now();
    const expired = [...this.lru.rkeys()].filter((k) => this.lru.peek(k)!.expiresAt <= now);
    for (const k of expired) this.lru.delete(k);
    return expired.length;
  }

  /** Stored entries, expired ones not yet dropped included. */
  get size(): number {
    return this.lru.size;
  }

  clear(): void {
    this.lru.clear();
  }
}
