// SSA request cache (upstream internal/util/ssa/cache.go): remembers "applying this intent to this object at this
// resourceVersion is a no-op". TTL-based like upstream, plus a size bound so a busy controller cannot grow it
// without limit.
import { LRUExpireCache, type PassiveClock } from '@capi/apimachinery';
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

export interface SsaCacheOptions {
  /** Label value of the hit/miss metrics, e.g. "machineset". */
  controllerName: string;
  ttlMs?: number;
  maxEntries?: number;
  clock?: PassiveClock;
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
  private readonly metrics?: SsaCacheMetrics;
  /** Keys only (the value is unused); every add() gives a key the same TTL, so the oldest entry expires first. */
  private readonly entries: LRUExpireCache<true>;

  constructor(opts: SsaCacheOptions) {
    if (!opts.controllerName) throw new Error('SsaCache: controllerName is required');
    this.controllerName = opts.controllerName;
    this.ttlMs = opts.ttlMs ?? DEFAULT_SSA_CACHE_TTL_MS;
    const maxEntries = opts.maxEntries ?? DEFAULT_SSA_CACHE_MAX_ENTRIES;
    if (!(this.ttlMs > 0)) throw new Error(`SsaCache: ttlMs must be > 0, got ${this.ttlMs}`);
    if (!Number.isInteger(maxEntries) || maxEntries < 1)
      throw new Error(`SsaCache: maxEntries must be a positive integer, got ${maxEntries}`);
    this.entries = new LRUExpireCache({ max: maxEntries, clock: opts.clock });
    this.metrics = opts.registry ? ssaCacheMetrics(opts.registry) : undefined;
  }

  /** Adds or refreshes `key` (new TTL, most recently used). */
  add(key: string): void {
    this.entries.add(key, true, this.ttlMs);
  }

  /** Whether `key` is cached and not expired; counts a hit or miss for `kind`. Expired keys are dropped. */
  has(key: string, kind: string): boolean {
    const found = this.peek(key);
    this.metrics?.[found ? 'hits' : 'misses'].inc({ kind, controller: this.controllerName });
    return found;
  }

  /** Like has() without metrics or LRU effects. */
  peek(key: string): boolean {
    return this.entries.get(key) !== undefined;
  }

  /** Drops expired entries (upstream does this from a background loop; add() drops those at the old end). */
  purgeExpired(): number {
    return this.entries.purgeExpired();
  }

  /** Number of stored entries (expired ones not yet purged included). */
  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
  }
}
