import { Logger } from '@nestjs/common';
import { Registry } from 'prom-client';
import { type ByObject, InformerCache } from '../cache/cache';
import { CachedClient } from '../cache/cached-client';
import { Client } from '../client/types';
import type { LeadershipFence } from '../leader/fence';
import { Controller, DEFAULT_GRACEFUL_SHUTDOWN_TIMEOUT_MS } from '../controller/controller';
import { ControllerOptions, Reconciler } from '../controller/types';
import { LeaderElectionOptions, LeaderElector } from '../leader/leader-elector';
import { type Clock, realClock } from '@capi/apimachinery';

export interface ManagerOptions {
  /** Direct API client (writes, and reads the cache cannot serve). */
  client: Client;
  /** Restricts the cache to one namespace. */
  namespace?: string;
  cache?: InformerCache;
  /** Per-kind settings of the manager's cache (CacheOptions.byObject; ignored with `cache`). */
  cacheByObject?: Readonly<Record<string, ByObject>>;
  /**
   * Kinds the manager's client (cachedClient) reads from the API, not the cache (controller-runtime's
   * client.CacheOptions.DisableFor). The secretCachingClient still reads them from the cache.
   */
  clientDisableFor?: readonly string[];
  registry?: Registry;
  /** Omit to run without leader election. */
  leaderElection?: LeaderElectionOptions;
  clock?: Clock;
  /** How long stop() waits for in-flight reconciles; default 30 s. */
  gracefulShutdownTimeoutMs?: number;
  /** How long start() waits for the informers' first sync; default 120 s. */
  cacheSyncTimeoutMs?: number;
  /**
   * Parallel reconciles per controller name (upstream's --*-concurrency flags), overriding the controller's own
   * maxConcurrentReconciles; controllers not named keep theirs.
   */
  concurrency?: Readonly<Record<string, number>>;
  /** Called when leadership is lost other than by stop(). Controllers are stopped before. */
  onLeadershipLost?: () => void;
  /** Bound to the LeaderElector (LeaderElector.mayAct) when leader election is on; the client checks it. */
  fence?: LeadershipFence;
  /**
   * Cluster API's ReconcilerRateLimiting gate (GA, on by default upstream; the manager passes its gate): each object is
   * reconciled at most once per controller's rate limit interval (1 s unless the controller sets a longer one).
   * Default false: a gate not given is off.
   */
  reconcilerRateLimiting?: boolean;
  /**
   * The rate limit interval of controllers that set none (upstream: 1 s, and a controller may only set a longer one).
   * Tests shorten it, as upstream's tests shorten the MachineHealthCheck's (overrideRateLimit).
   */
  rateLimitIntervalMs?: number;
  /** Rate limit intervals per controller name, overriding the controller's own (tests: upstream's overrideRateLimit). */
  rateLimitIntervals?: Readonly<Record<string, number>>;
}

/** How long start() waits for the informers' first sync (controller-runtime's default CacheSyncTimeout, 2 min). */
export const DEFAULT_CACHE_SYNC_TIMEOUT_MS = 120_000;

interface ControllerDefinition {
  options: ControllerOptions;
  reconciler: Reconciler;
}

/** Owns the cache and the controllers; starts controllers once the cache synced and (if enabled) this process leads. */
export class Manager {
  readonly client: Client;
  readonly cache: InformerCache;
  readonly cachedClient: CachedClient;
  /**
   * Reads every kind from the manager's cache, those of clientDisableFor too (upstream's CreateSecretCachingClient):
   * for the Secrets the cache is configured to hold, e.g. kubeconfigs and cluster certificates.
   */
  readonly secretCachingClient: CachedClient;
  /** Caches started, synced and stopped with the manager's own (controller-runtime's mgr.Add of a cache). */
  private readonly extraCaches: InformerCache[] = [];
  private readonly cacheListeners = new Set<(cache: InformerCache) => void>();
  readonly registry: Registry;
  /** The one namespace the manager's cache is restricted to (ManagerOptions.namespace), for caches added to it. */
  readonly namespace?: string;
  private readonly log = new Logger('Manager');
  private readonly clock: Clock;
  private readonly definitions: ControllerDefinition[] = [];
  private running: Controller[] = [];
  private elector?: LeaderElector;
  private state: 'new' | 'starting' | 'started' | 'stopping' | 'stopped' = 'new';
  private leading = false;
  private electedWaiters: (() => void)[] = [];
  private readonly leadershipLostListeners: (() => void)[] = [];

  constructor(private readonly opts: ManagerOptions) {
    this.client = opts.client;
    this.namespace = opts.namespace;
    this.clock = opts.clock ?? realClock;
    this.registry = opts.registry ?? new Registry();
    this.cache =
      opts.cache ??
      new InformerCache(opts.client, { namespace: opts.namespace, clock: this.clock, byObject: opts.cacheByObject });
    this.cachedClient = new CachedClient(this.cache, opts.client, { disableFor: opts.clientDisableFor });
    this.secretCachingClient = new CachedClient(this.cache, opts.client);
  }

  /**
   * Another cache whose informers start, sync and stop with the manager's (e.g. a metadata-only cache of a kind the
   * manager's cache holds only in part); controllers watch it through WatchSpec.cache. Added once the manager is
   * starting, it starts at once (a controller added late does not wait for its sync, as for the manager's cache).
   */
  addCache(cache: InformerCache): void {
    if (cache === this.cache || this.extraCaches.includes(cache)) return;
    this.extraCaches.push(cache);
    if (this.state === 'starting' || this.state === 'started') cache.start();
    for (const l of [...this.cacheListeners]) l(cache);
  }

  /** The manager's cache, then those added to it (addCache). */
  caches(): InformerCache[] {
    return [this.cache, ...this.extraCaches];
  }

  /** Calls `listener` with each cache added from now on (jobs that follow every cache, e.g. the resync). */
  onCacheAdded(listener: (cache: InformerCache) => void): () => void {
    this.cacheListeners.add(listener);
    return () => this.cacheListeners.delete(listener);
  }

  /** Registers a controller. Names must be unique. Added after start, it runs as soon as this process leads. */
  addController(reconciler: Reconciler, options: ControllerOptions): void {
    if (this.definitions.some((d) => d.options.name === options.name))
      throw new Error(`controller "${options.name}" is already registered`);
    const concurrency = this.opts.concurrency?.[options.name];
    const rateLimitIntervalMs = this.opts.rateLimitIntervals?.[options.name];
    const def = {
      options: {
        ...options,
        ...(concurrency ? { maxConcurrentReconciles: concurrency } : {}),
        ...(rateLimitIntervalMs ? { rateLimitIntervalMs } : {}),
      },
      reconciler,
    };
    this.definitions.push(def);
    this.touchSources(def);
    if (this.state === 'started' && this.leading) this.run(def);
  }

  controllerNames(): string[] {
    return this.definitions.map((d) => d.options.name);
  }

  /** Running controller by name (undefined before leading). */
  controller(name: string): Controller | undefined {
    return this.running.find((c) => c.name === name);
  }

  isLeader(): boolean {
    return this.leading;
  }

  /** Resolves once controllers are running (immediately without leader election). */
  /** Calls `listener` when leadership is lost (not on stop); controller-runtime's Start returns an error then. */
  onLeadershipLost(listener: () => void): void {
    this.leadershipLostListeners.push(listener);
  }

  elected(): Promise<void> {
    if (this.leading) return Promise.resolve();
    return new Promise((resolve) => this.electedWaiters.push(resolve));
  }

  /** Starts informers, waits for their sync, then starts controllers (directly or when elected). */
  async start(): Promise<void> {
    if (this.state !== 'new') throw new Error(`manager cannot start from state ${this.state}`);
    this.state = 'starting';
    for (const c of this.caches()) c.start();
    const timeout = this.opts.cacheSyncTimeoutMs ?? DEFAULT_CACHE_SYNC_TIMEOUT_MS;
    const synced = (await Promise.all(this.caches().map((c) => c.waitForSync(timeout)))).every(Boolean);
    if (this.state !== 'starting') return; // stop() was called while waiting
    if (!synced) {
      await Promise.all(this.caches().map((c) => c.stop()));
      this.state = 'stopped';
      throw new Error(`caches did not sync within ${timeout}ms`);
    }
    this.state = 'started';
    if (!this.opts.leaderElection) return this.startLeading();
    this.elector = new LeaderElector(
      this.client,
      this.opts.leaderElection,
      {
        onStartedLeading: () => this.startLeading(),
        onStoppedLeading: () => this.stopLeading(),
      },
      this.clock,
    );
    this.opts.fence?.bind(() => this.elector?.mayAct() ?? true);
    this.elector.start();
  }

  /** Graceful stop: no new work, wait (bounded) for in-flight reconciles, stop informers, release the lease. */
  async stop(): Promise<void> {
    if (this.state === 'stopped' || this.state === 'stopping') return;
    this.state = 'stopping';
    if (this.elector)
      await this.elector.stop(); // steps down via onStoppedLeading, then releases the lease
    else await this.stopControllers();
    await Promise.all(this.caches().map((c) => c.stop()));
    this.state = 'stopped';
  }

  private touchSources(def: ControllerDefinition): void {
    // Creating informers up front lets start() wait for every source to sync before any reconcile runs.
    for (const s of [def.options.for, ...(def.options.owns ?? [])]) this.cache.informerFor(s.apiVersion, s.kind);
    for (const w of def.options.watches ?? []) {
      if (w.cache) this.addCache(w.cache);
      (w.cache ?? this.cache).informerFor(w.apiVersion, w.kind);
    }
  }

  private startLeading(): void {
    this.leading = true;
    for (const def of this.definitions) this.run(def);
    this.electedWaiters.splice(0).forEach((w) => w());
  }

  private async stopLeading(): Promise<void> {
    this.leading = false;
    await this.stopControllers();
    if (this.state !== 'stopping') {
      this.log.error('leadership lost; controllers stopped');
      this.opts.onLeadershipLost?.();
      for (const l of this.leadershipLostListeners) l();
    }
  }

  private run(def: ControllerDefinition): void {
    const c = new Controller(def.options, def.reconciler, {
      cache: this.cache,
      registry: this.registry,
      clock: this.clock,
      reconcilerRateLimiting: this.opts.reconcilerRateLimiting ?? false,
      rateLimitIntervalMs: this.opts.rateLimitIntervalMs,
    });
    this.running.push(c);
    c.start();
  }

  private async stopControllers(): Promise<void> {
    const timeout = this.opts.gracefulShutdownTimeoutMs ?? DEFAULT_GRACEFUL_SHUTDOWN_TIMEOUT_MS;
    const controllers = this.running.splice(0);
    await Promise.all(controllers.map((c) => c.stop(timeout)));
  }
}
