// SSA request cache (upstream internal/util/ssa/cache.go): remembers "applying this intent to this object at this
// resourceVersion is a no-op". TTL-based like upstream, plus an LRU size bound so a busy controller cannot grow it
// without limit.
import { Counter, Registry } from 'prom-client';

/** Upstream ttl: a multiple of the default sync period so entries get refreshed a few times before expiring. */
export const DEFAULT_SSA_CACHE_TTL_MS = 30 * 60 * 1000;
/**
 * Upstream has no size bound (TTL only). Ours must stay above the live keys of a big fleet: the MachineSet controller
 * keeps up to two keys (resourceVersion, owned values) for each Machine, InfraMachine and BootstrapConfig, plus keys of
 * older resourceVersions until their TTL; 10,000 evicted live keys from ~1,700 Machines on (each miss a re-apply).
 * ~200 bytes an entry: 250,000 is ~50 MB at most.
 */
export const DEFAULT_SSA_CACHE_MAX_ENTRIES = 250_000;

/** Only `now()` is needed; structurally compatible with controller-runtime's Clock. */
export interface NowClock {
  now(): number;
}

const wallClock: NowClock = { now: () => Date.now() };

export interface SsaCacheOptions {
  /** Label value of the hit/miss metrics, e.g. "machineset". */
  controllerName: string;
  ttlMs?: number;
  maxEntries?: number;
  clock?: NowClock;
  /** Registry for capi_ssa_cache_{hits,misses}_total; metrics are not exported without one. */
  registry?: Registry;
}

export interface SsaCacheMetrics {
  hits: Counter<string>;
  misses: Counter<string>;
}

/** The two counters, created once per registry (prom-client rejects duplicate names). */
export function ssaCacheMetrics(registry: Registry): SsaCacheMetrics {
  const get = (name: string, help: string) =>
    (registry.getSingleMetric(name) as Counter<string> | undefined) ??
    new Counter({ name, help, labelNames: ['kind', 'controller'], registers: [registry] });
  return {
    hits: get('capi_ssa_cache_hits_total', 'Total number of ssa cache hits.'),
    misses: get('capi_ssa_cache_misses_total', 'Total number of ssa cache misses.'),
  };
}

export class SsaCache {
  readonly controllerName: string;
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly clock: NowClock;
  private readonly metrics?: SsaCacheMetrics;
  /** key → expiry time. Map iteration order is insertion order, so the first key is the least recently used. */
  private readonly entries = new Map<string, number>();

  constructor(opts: SsaCacheOptions) {
    if (!opts.controllerName) throw new Error('SsaCache: controllerName is required');
    this.controllerName = opts.controllerName;
    this.ttlMs = opts.ttlMs ?? DEFAULT_SSA_CACHE_TTL_MS;
    this.maxEntries = opts.maxEntries ?? DEFAULT_SSA_CACHE_MAX_ENTRIES;
    if (!(this.ttlMs > 0)) throw new Error(`SsaCache: ttlMs must be > 0, got ${this.ttlMs}`);
    if (!Number.isInteger(this.maxEntries) || this.maxEntries < 1)
      throw new Error(`SsaCache: maxEntries must be a positive integer, got ${this.maxEntries}`);
    this.clock = opts.clock ?? wallClock;
    this.metrics = opts.registry ? ssaCacheMetrics(opts.registry) : undefined;
  }

  /** Adds or refreshes `key` (new TTL, most recently used). */
  add(key: string): void {
    this.purgeExpired();
    this.entries.delete(key);
    this.entries.set(key, this.clock.now() + this.ttlMs);
    // Every add() moves its key to the end with expiry now+ttl, so the map is ordered by expiry as well as by
    // recency: expired and least recently used entries are both found at the front.
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
  }

  /** Whether `key` is cached and not expired; counts a hit or miss for `kind`. Expired keys are dropped. */
  has(key: string, kind: string): boolean {
    const found = this.peek(key);
    this.metrics?.[found ? 'hits' : 'misses'].inc({ kind, controller: this.controllerName });
    return found;
  }

  /** Like has() without metrics or LRU effects. */
  peek(key: string): boolean {
    const expiry = this.entries.get(key);
    if (expiry === undefined) return false;
    if (expiry <= this.clock.now()) {
      this.entries.delete(key);
      return false;
    }
    return true;
  }

  /** Drops expired entries (upstream does this from a background loop); cheap: they are all at the front. */
  purgeExpired(): number {
    const now = this.clock.now();
    let removed = 0;
    for (const [key, expiry] of this.entries) {
      if (expiry > now) break;
      this.entries.delete(key);
      removed++;
    }
    return removed;
  }

  /** Number of stored entries (expired ones not yet purged included). */
  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
  }
}
