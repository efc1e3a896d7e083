import {
  BeforeApplicationShutdown,
  DynamicModule,
  Global,
  Inject,
  Injectable,
  Logger,
  Module,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { DiscoveryModule, DiscoveryService } from '@nestjs/core';
import { KubeConfig } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { ClientMetrics, combineClientMetrics, PromClientMetrics } from '../client/client-metrics';
import { KubeClient } from '../client/kube-client';
import type { ClientRateLimit } from '../client/token-bucket';
import type { ApiWarningHandler } from '../client/warnings';
import { ControllerOptions, Reconciler } from '../controller/types';
import { LeadershipFence } from '../leader/fence';
import { LeaderElectionOptions } from '../leader/leader-elector';
import { Manager, type ManagerOptions } from '../manager/manager';
import { CacheResync } from './cache-resync';
import { SCHEDULE_MODULE } from './schedule';
import { RECONCILER_FOR } from './reconciler-for.decorator';
import {
  CACHE,
  CACHED_CLIENT,
  SECRET_CACHING_CLIENT,
  CONTROLLER_RUNTIME_OPTIONS,
  KUBE_CLIENT,
  KUBE_CONFIG,
  LEADERSHIP_FENCE,
  MANAGER,
  METRICS_REGISTRY,
} from './tokens';

export interface ControllerRuntimeModuleOptions {
  kubeconfig: KubeConfig | (() => KubeConfig | Promise<KubeConfig>);
  leaderElection?: LeaderElectionOptions;
  /** Restrict the cache to one namespace. */
  namespace?: string;
  /** Registry to put metrics on; a new one by default (inject METRICS_REGISTRY to expose it). */
  registry?: Registry;
  /** Extra request observer (e.g. CountingClientMetrics in benchmarks). */
  clientMetrics?: ClientMetrics;
  /** Default fieldManager for writes. */
  fieldManager?: string;
  /** Client-side rate limit of the API client (--kube-api-qps/--kube-api-burst); none by default. */
  clientRateLimit?: ClientRateLimit;
  /** What the API client does with the API server's warnings (default: logged as controller-runtime does). */
  apiWarnings?: ApiWarningHandler;
  /** User-Agent of the API client (upstream's rest.Config.UserAgent); none by default. */
  userAgent?: string;
  /** Parallel reconciles per controller name (--*-concurrency), overriding each controller's default. */
  concurrency?: Readonly<Record<string, number>>;
  /** The ReconcilerRateLimiting feature gate (ManagerOptions.reconcilerRateLimiting); default false. */
  reconcilerRateLimiting?: boolean;
  /** ManagerOptions.rateLimitIntervalMs. */
  rateLimitIntervalMs?: number;
  /** ManagerOptions.rateLimitIntervals. */
  rateLimitIntervals?: Readonly<Record<string, number>>;
  /**
   * How often the cache re-delivers every object to its controllers, jittered ±10 % per kind (controller-runtime's
   * SyncPeriod: default 10 h; upstream's manager passes --sync-period, 10 m); 0 never. Scheduled by CacheResync.
   */
  syncPeriodMs?: number;
  gracefulShutdownTimeoutMs?: number;
  cacheSyncTimeoutMs?: number;
  /** Start the manager on application bootstrap (default true). */
  autoStart?: boolean;
  /** ManagerOptions.cacheByObject: per-kind label selector and transform of the manager's cache. */
  cacheByObject?: ManagerOptions['cacheByObject'];
  /** ManagerOptions.clientDisableFor: kinds CACHED_CLIENT reads from the API (SECRET_CACHING_CLIENT from the cache). */
  clientDisableFor?: ManagerOptions['clientDisableFor'];
}

/** Adds every @ReconcilerFor provider to the Manager at bootstrap, starts it, and stops it on shutdown. */
@Injectable()
export class ManagerLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly log = new Logger('ControllerRuntime');

  constructor(
    private readonly discovery: DiscoveryService,
    @Inject(MANAGER) private readonly manager: Manager,
    @Inject(KUBE_CLIENT) private readonly client: KubeClient,
    @Inject(CONTROLLER_RUNTIME_OPTIONS) private readonly options: ControllerRuntimeModuleOptions,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    for (const wrapper of this.discovery.getProviders()) {
      const type = wrapper.metatype as unknown;
      if (!wrapper.instance || typeof type !== 'function') continue;
      const opts = Reflect.getMetadata(RECONCILER_FOR, type) as ControllerOptions | undefined;
      if (!opts) continue;
      if (!wrapper.isDependencyTreeStatic()) throw new Error(`reconciler ${wrapper.name} must not be request-scoped`);
      const reconciler = wrapper.instance as Reconciler;
      if (typeof reconciler.reconcile !== 'function')
        throw new Error(`${wrapper.name} has @ReconcilerFor but no reconcile()`);
      if (this.manager.controllerNames().includes(opts.name)) continue; // same provider exported through several modules
      this.manager.addController(reconciler, opts);
      this.log.log(`registered controller ${opts.name} for ${opts.for.apiVersion} ${opts.for.kind}`);
    }
    if (this.options.autoStart !== false) await this.manager.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.manager.stop();
  }

  onApplicationShutdown(): void {
    this.client.close();
  }
}

@Global()
@Module({})
export class ControllerRuntimeModule {
  static forRoot(options: ControllerRuntimeModuleOptions): DynamicModule {
    return {
      module: ControllerRuntimeModule,
      global: true,
      // The cache's resync jobs (CacheResync) are intervals in the SchedulerRegistry.
      imports: [DiscoveryModule, SCHEDULE_MODULE],
      providers: [
        { provide: CONTROLLER_RUNTIME_OPTIONS, useValue: options },
        {
          provide: KUBE_CONFIG,
          useFactory: async () =>
            typeof options.kubeconfig === 'function' ? await options.kubeconfig() : options.kubeconfig,
        },
        { provide: METRICS_REGISTRY, useFactory: () => options.registry ?? new Registry() },
        { provide: LEADERSHIP_FENCE, useFactory: () => new LeadershipFence() },
        {
          provide: KUBE_CLIENT,
          inject: [KUBE_CONFIG, METRICS_REGISTRY, LEADERSHIP_FENCE],
          useFactory: (kc: KubeConfig, registry: Registry, fence: LeadershipFence) =>
            new KubeClient(kc, {
              fence,
              metrics: combineClientMetrics(new PromClientMetrics(registry), options.clientMetrics),
              fieldManager: options.fieldManager,
              rateLimit: options.clientRateLimit,
              warnings: options.apiWarnings,
              userAgent: options.userAgent,
            }),
        },
        {
          provide: MANAGER,
          inject: [KUBE_CLIENT, METRICS_REGISTRY, LEADERSHIP_FENCE],
          useFactory: (client: KubeClient, registry: Registry, fence: LeadershipFence) =>
            new Manager({
              client,
              fence,
              registry,
              namespace: options.namespace,
              leaderElection: options.leaderElection,
              gracefulShutdownTimeoutMs: options.gracefulShutdownTimeoutMs,
              cacheSyncTimeoutMs: options.cacheSyncTimeoutMs,
              concurrency: options.concurrency,
              reconcilerRateLimiting: options.reconcilerRateLimiting,
              rateLimitIntervalMs: options.rateLimitIntervalMs,
              rateLimitIntervals: options.rateLimitIntervals,
              cacheByObject: options.cacheByObject,
              clientDisableFor: options.clientDisableFor,
            }),
        },
        { provide: CACHE, inject: [MANAGER], useFactory: (m: Manager) => m.cache },
        { provide: CACHED_CLIENT, inject: [MANAGER], useFactory: (m: Manager) => m.cachedClient },
        { provide: SECRET_CACHING_CLIENT, inject: [MANAGER], useFactory: (m: Manager) => m.secretCachingClient },
        ManagerLifecycle,
        CacheResync,
      ],
      // LEADERSHIP_FENCE too: the Runtime SDK client injects it (optionally) to make no extension call as a deposed
      // leader; unexported, it got none and a paused leader still called UpdateMachine/CanUpdate* hooks on resume.
      exports: [
        KUBE_CONFIG,
        KUBE_CLIENT,
        CACHED_CLIENT,
        SECRET_CACHING_CLIENT,
        CACHE,
        MANAGER,
        METRICS_REGISTRY,
        LEADERSHIP_FENCE,
      ],
    };
  }
}
