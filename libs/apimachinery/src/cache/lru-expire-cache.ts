// A size-bounded cache whose entries expire (k8s.io/apimachinery/pkg/util/cache/lruexpirecache.go). Expiry is checked
// against an injectable clock on every read, so a fake clock moves it exactly.
//
// Every caller gives all entries one TTL and reads never reorder, so the entry added longest ago is both the next to
// expire and the next to evict: a Map's insertion order is all the bookkeeping needed. (lru-cache, used before, keeps
// five parallel arrays and a wrapper per entry for recency on reads: about twice the memory per entry of the SSA
// caches, which hold tens of thousands of keys at fleet scale.)
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
  /** In add() order: the first entry is the one added (or re-added) longest ago. */
  private readonly entries = new Map<string, Entry<V>>();
  private readonly max: number;
  private readonly clock: PassiveClock;

  constructor(opts: LRUExpireCacheOptions) {
    if (!Number.isInteger(opts.max) || opts.max < 1)
      throw new Error(`LRUExpireCache: max must be a positive integer, got ${opts.max}`);
    this.max = opts.max;
    this.clock = opts.clock ?? realClock;
  }

  /**
   * Adds or replaces `key`, expiring `ttlMs` from now, as the newest entry. Expired entries at the old end are
   * dropped first (all of them when every entry has the same TTL), so the size stays the live count.
   */
  add(key: string, value: V, ttlMs: number): void {
    const now = this.clock.now();
    for (const [k, e] of this.entries) {
      if (e.expiresAt > now) break;
      this.entries.delete(k);
    }
    this.entries.delete(key); // re-adding moves the key to the new end
    this.entries.set(key, { value, expiresAt: now + ttlMs });
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
  }

  /** The value of `key`, or undefined when absent or expired (an expired entry is dropped). */
  get(key: string): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.expiresAt <= this.clock.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return e.value;
  }

  remove(key: string): void {
    this.entries.delete(key);
  }

  /** Drops every expired entry; returns how many. */
  purgeExpired(): number {
    const now = this.clock.now();
    let dropped = 0;
    for (const [k, e] of this.entries)
      if (e.expiresAt <= now) {
        this.entries.delete(k);
        dropped++;
      }
    return dropped;
  }

  /** Stored entries, expired ones not yet dropped included. */
  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
  }
}
