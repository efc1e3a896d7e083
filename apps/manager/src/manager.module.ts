import { WorkloadClusterClientOptionsModule } from '@capi/clustercache';
import { readFile } from 'node:fs/promises';
import {
  Inject,
  Injectable,
  Module,
  type DynamicModule,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type Provider,
  type Type,
} from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import type { Registry } from 'prom-client';
import { KubeConfig } from '@kubernetes/client-node';
import {
  assertNestCompatible,
  ControllerRuntimeModule,
  FeatureGatesModule,
  inClusterKubeconfig,
  inClusterNamespace,
  KUBE_CLIENT,
  KUBE_CONFIG,
  KubeClient,
  MANAGER,
  METRICS_REGISTRY,
  SCHEDULE_MODULE,
  type Client,
  type Manager,
} from '@capi/controller-runtime';
import { CONTROLPLANE_API_VERSION, type KubeadmControlPlane } from '@capi/api';
import { managerSecretCacheOptions } from '@capi/certs';
import { LiveViewModule } from '@capi/live-view';
import {
  coreWebhooks,
  kubeadmWebhooks,
  miscWebhooks,
  WEBHOOK_REGISTRATIONS,
  type WebhookRegistration,
} from '@capi/webhooks';
import type { ManagerConfig } from './config/config';
import {
  DEFAULT_CONTROLLERS,
  selectControllers,
  type ControllerRegistry,
  type ControllerSelection,
} from './controllers/registry';
import { ApiServerEmbeddedEnvironment, EMBEDDED_ENVIRONMENT, type EmbeddedEnvironment } from './embedded/embedded';
import { EmbeddedProviderModule, type EmbeddedProviderOptions } from './embedded/embedded-provider.module';
import { EmbeddedEventTtl } from './embedded/event-ttl';
import { CheckRegistry, HEALTH_CHECKS, READINESS_CHECKS, serveHealth } from './health/health';
import { managerUserAgent } from './config/user-agent';
import { LeadershipLostExit } from './lifecycle/leadership-lost-exit';
import { API_ACCESS_CHECKED, checkApiAccess } from './config/api-access';
import { defaultApiWarnings } from './logging/api-warnings';
import { JsonLogger, LOGGER } from './logging/logger';
import type { Endpoint } from './metrics/http-endpoint';
import { startWebhookServer, WEBHOOK_SERVER, WebhookServerShutdown } from './webhooks/webhook-server';
import { createMetricsRegistry, serveMetrics } from './metrics/metrics';
import {
  DeferredManagerExit,
  MANAGER_EXIT,
  RegistryWarmUpExit,
  WARM_UP_API_SERVER,
  type WarmUpApiServer,
} from './runtime-sdk/warm-up-exit';

/** Token of the validated ManagerConfig. */
export const MANAGER_CONFIG = Symbol.for('capi.ManagerConfig');
/** Token of the kubeconfig (YAML text) controllers connect with: the --kubeconfig file, the in-cluster one or the embedded default's. */
export const KUBECONFIG = Symbol.for('capi.Kubeconfig');
/** Token of what the embedded environment started (`{ kubeconfig, kubeconfigPath? }`), undefined unless the API server is embedded. */
export const EMBEDDED_STARTED = Symbol.for('capi.EmbeddedStarted');
export type EmbeddedStarted = Awaited<ReturnType<EmbeddedEnvironment['start']>> | undefined;
/** Token of which controllers run and which were skipped (and why). */
export const CONTROLLER_SELECTION = Symbol.for('capi.ControllerSelection');
export type ControllerSelectionInfo = Pick<ControllerSelection, 'enabled' | 'skipped'>;

/** Starts the metrics and health servers once every module is initialised; closes them (and the embedded env) on shutdown. */
@Injectable()
export class ManagerEndpoints implements OnApplicationBootstrap, OnApplicationShutdown {
  metrics?: Endpoint;
  health?: Endpoint;
  private bootstrapped = false;

  constructor(
    @Inject(MANAGER_CONFIG) private readonly config: ManagerConfig,
    @Inject(METRICS_REGISTRY) private readonly registry: Registry,
    @Inject(HEALTH_CHECKS) private readonly healthChecks: CheckRegistry,
    @Inject(READINESS_CHECKS) private readonly readinessChecks: CheckRegistry,
    @Inject(EMBEDDED_ENVIRONMENT) private readonly embedded: EmbeddedEnvironment,
    @Inject(LOGGER) private readonly log: JsonLogger,
    @Inject(CONTROLLER_SELECTION) private readonly selection: ControllerSelectionInfo,
    @Inject(MANAGER) manager: Manager,
  ) {
    readinessChecks.add('manager-started', () => this.bootstrapped || 'manager is still starting');
    readinessChecks.add('informers-synced', () => manager.cache.hasSynced() || 'informer caches have not synced');
  }

  async onApplicationBootstrap(): Promise<void> {
    for (const s of this.selection.skipped)
      this.log.info('controller skipped', { logger: 'manager', controller: s.name, reason: s.reason });
    this.log.info('controllers enabled', {
      logger: 'manager',
      controllers: this.selection.enabled,
      featureGates: this.config.featureGates.toJSON(),
    });
    if (this.config.metricsBindAddress !== '0') {
      this.metrics = await serveMetrics(this.config.metricsBindAddress, this.registry);
      this.log.info('serving metrics', { logger: 'manager', address: this.metrics.address });
    }
    if (this.config.healthProbeBindAddress !== '0') {
      this.health = await serveHealth(this.config.healthProbeBindAddress, this.healthChecks, this.readinessChecks);
      this.log.info('serving health probes', { logger: 'manager', address: this.health.address });
    }
    this.bootstrapped = true;
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.metrics?.close(), this.health?.close()]);
    if (this.config.apiServer.mode === 'embedded') await this.embedded.stop();
  }
}

export interface ManagerOverrides {
  /** Providers replacing the defaults with the same token (or adding new ones); visible to every module. */
  providers?: Provider[];
  /** Controller registry to select from (default: the libs' modules). */
  controllers?: ControllerRegistry;
  /** Options of the embedded default's provider module (provisioning delay, updater timings). */
  embeddedProvider?: EmbeddedProviderOptions;
  /**
   * A downstream provider's own modules (its infrastructure controllers, in-process updaters), imported next to the
   * selected controller modules; they see the global core and controller-runtime providers.
   */
  modules?: Array<DynamicModule | Type<unknown>>;
}

function tokenOf(p: Provider): unknown {
  return typeof p === 'function' ? p : p.provide;
}

/**
 * Upstream's webhooks with the manager's feature gates: core (MachineDeployment, MachineSet, Machine), the others of
 * core/webhooks/admission (MachineHealthCheck, ExtensionConfig, MachineDrainRule, Cluster) and the kubeadm ones
 * (KubeadmControlPlane and its scale subresource, KubeadmConfig, KubeadmConfigTemplate).
 */
export function defaultWebhookRegistrations(config: ManagerConfig, client: Client): WebhookRegistration[] {
  const gates = config.featureGates;
  return [
    ...coreWebhooks({
      featureGates: {
        MachineSetPreflightChecks: gates.enabled('MachineSetPreflightChecks'),
        MachineTaintPropagation: gates.enabled('MachineTaintPropagation'),
      },
    }),
    ...miscWebhooks({ featureGates: gates }),
    ...kubeadmWebhooks({
      gates,
      readKubeadmControlPlane: (namespace, name) =>
        client.get<KubeadmControlPlane>({
          apiVersion: CONTROLPLANE_API_VERSION,
          kind: 'KubeadmControlPlane',
          namespace,
          name,
        }),
    }),
  ];
}

/** The default core providers for `config`, before overrides. */
function defaultProviders(config: ManagerConfig): Provider[] {
  const gates = FeatureGatesModule.forRoot(config.featureGates).providers ?? [];
  return [
    ...gates,
    { provide: MANAGER_CONFIG, useValue: config },
    { provide: LOGGER, useFactory: () => JsonLogger.create({ level: config.logLevel, format: config.logFormat }) },
    { provide: HEALTH_CHECKS, useClass: CheckRegistry },
    { provide: READINESS_CHECKS, useClass: CheckRegistry },
    {
      // The admission webhooks the manager serves (upstream core/main.go setupWebhooks, plus the kubeadm providers'
      // webhooks, which run in this process): the webhook server's paths and, in the embedded default, the
      // configurations it registers. A ManagerOverrides provider with this token replaces the list.
      provide: WEBHOOK_REGISTRATIONS,
      inject: [KUBE_CLIENT],
      useFactory: (client: Client): WebhookRegistration[] => defaultWebhookRegistrations(config, client),
    },
    {
      provide: EMBEDDED_ENVIRONMENT,
      inject: [LOGGER],
      useFactory: (log: JsonLogger) =>
        new ApiServerEmbeddedEnvironment({
          dataDir: config.dataDir,
          eventTtlMs: config.eventTtlMs,
          logger: {
            info: (m) => log.log(m, 'embedded-apiserver'),
            warn: (m) => log.warn(m, 'embedded-apiserver'),
            error: (m) => log.error(m, undefined, 'embedded-apiserver'),
          },
        }),
    },
    {
      // The embedded API server's expired Events are deleted by a periodic job (--event-ttl).
      provide: EmbeddedEventTtl,
      inject: [EMBEDDED_ENVIRONMENT, SchedulerRegistry, LOGGER],
      useFactory: (embedded: EmbeddedEnvironment, scheduler: SchedulerRegistry, log: JsonLogger) =>
        new EmbeddedEventTtl(embedded, scheduler, log, config.apiServer.mode === 'embedded' ? config.eventTtlMs : 0),
    },
    {
      provide: EMBEDDED_STARTED,
      inject: [MANAGER_CONFIG, EMBEDDED_ENVIRONMENT],
      useFactory: async (c: ManagerConfig, embedded: EmbeddedEnvironment): Promise<EmbeddedStarted> =>
        c.apiServer.mode === 'embedded' ? embedded.start() : undefined,
    },
    {
      // Resolved before any controller module is instantiated, so the embedded environment starts first.
      provide: KUBECONFIG,
      inject: [MANAGER_CONFIG, EMBEDDED_STARTED, LOGGER],
      useFactory: async (c: ManagerConfig, started: EmbeddedStarted, log: JsonLogger) => {
        const source = c.apiServer;
        const rateLimit = c.kubeApiRateLimit ?? 'off';
        log.info('API server', {
          logger: 'manager',
          mode: source.mode,
          ...(source.mode === 'kubeconfig' ? { kubeconfig: source.path } : { reason: source.reason }),
          clientRateLimit: rateLimit,
          workloadClusterClientRateLimit: c.clusterCacheClientRateLimit ?? 'off',
        });
        if (source.mode === 'kubeconfig') return readKubeconfig(source.path);
        if (source.mode === 'in-cluster') return inClusterKubeconfig(source.inCluster);
        return started!.kubeconfig;
      },
    },
    ManagerEndpoints,
    { provide: MANAGER_EXIT, useClass: DeferredManagerExit },
    {
      provide: WARM_UP_API_SERVER,
      inject: [EMBEDDED_STARTED],
      useFactory: (started: EmbeddedStarted): WarmUpApiServer => ({
        embedded: config.apiServer.mode === 'embedded',
        kubeconfigPath: started?.kubeconfigPath,
      }),
    },
    RegistryWarmUpExit,
    LeadershipLostExit,
  ];
}

async function readKubeconfig(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    throw new Error(
      `invalid --kubeconfig: cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    );
  }
}

@Module({})
export class ManagerCoreModule {}

@Module({})
export class ManagerModule {}

/** The controller-runtime module (client, cache, Manager with leader election) wired to the manager's config and kubeconfig. */
function controllerRuntimeModule(config: ManagerConfig): DynamicModule {
  const le = config.leaderElection;
  const cr = ControllerRuntimeModule.forRoot({
    // Replaced below: the kubeconfig comes from the KUBECONFIG provider (file or embedded default).
    kubeconfig: () => {
      throw new Error('unreachable: KUBE_CONFIG is provided from KUBECONFIG');
    },
    namespace: config.namespace,
    clientRateLimit: config.kubeApiRateLimit,
    apiWarnings: defaultApiWarnings(),
    userAgent: managerUserAgent(),
    concurrency: config.concurrency,
    reconcilerRateLimiting: config.featureGates.enabled('ReconcilerRateLimiting'),
    syncPeriodMs: config.syncPeriodMs,
    // Secrets and ConfigMaps as upstream's managers read them (core/setup, controlplane/kubeadm/setup).
    ...managerSecretCacheOptions(),
    leaderElection: le.enabled
      ? {
          namespace: leaderElectionNamespace(config),
          name: LEADER_ELECTION_ID,
          leaseDurationMs: le.leaseDurationMs,
          renewDeadlineMs: le.renewDeadlineMs,
          retryPeriodMs: le.retryPeriodMs,
        }
      : undefined,
  });
  const providers = replaceByToken(cr.providers ?? [], [
    { provide: KUBE_CONFIG, inject: [KUBECONFIG], useFactory: loadKubeConfig },
    {
      // Resolved with the other providers, before the Manager starts its informers.
      provide: API_ACCESS_CHECKED,
      inject: [KUBE_CLIENT, KUBE_CONFIG],
      useFactory: (client: KubeClient, kc: KubeConfig) => checkApiAccess(client, kc.getCurrentCluster()?.server ?? ''),
    },
    { provide: METRICS_REGISTRY, useFactory: createMetricsRegistry },
    {
      // Resolved with the providers: serving starts before controllers and leader election (see webhook-server.ts).
      provide: WEBHOOK_SERVER,
      inject: [MANAGER_CONFIG, WEBHOOK_REGISTRATIONS, KUBE_CLIENT, LOGGER, HEALTH_CHECKS, READINESS_CHECKS],
      useFactory: (
        c: ManagerConfig,
        registrations: WebhookRegistration[],
        client: KubeClient,
        log: JsonLogger,
        health: CheckRegistry,
        readiness: CheckRegistry,
      ) => startWebhookServer({ config: c, registrations, client, log, health, readiness }),
    },
    WebhookServerShutdown,
  ]);
  return { ...cr, providers };
}

/**
 * Lease namespace: --leader-elect-resource-namespace, else --namespace, else in a pod the pod's namespace (as
 * controller-runtime), else `default` (the embedded default; with --kubeconfig loadManagerConfig requires one of the flags).
 */
export function leaderElectionNamespace(
  config: Pick<ManagerConfig, 'namespace' | 'apiServer'> & {
    leaderElection?: Pick<ManagerConfig['leaderElection'], 'namespace'>;
  },
): string {
  if (config.leaderElection?.namespace) return config.leaderElection.namespace;
  if (config.namespace) return config.namespace;
  if (config.apiServer.mode === 'in-cluster') return inClusterNamespace(config.apiServer.inCluster) ?? 'default';
  return 'default';
}

/** Lease name, as upstream's manager (controller-leader-election-capi). */
export const LEADER_ELECTION_ID = 'controller-leader-election-capi';

function loadKubeConfig(text: string): KubeConfig {
  const kc = new KubeConfig();
  try {
    kc.loadFromString(text);
  } catch (e) {
    throw new Error(`invalid --kubeconfig: ${(e as Error).message}`);
  }
  if (!kc.getCurrentCluster()) throw new Error('invalid --kubeconfig: no current cluster');
  return kc;
}

/** `base` with every provider whose token is in `replacements` swapped for the replacement; the rest appended. */
function replaceByToken(base: Provider[], replacements: Provider[]): Provider[] {
  const replaced = new Set(replacements.map(tokenOf));
  return [...base.filter((p) => !replaced.has(tokenOf(p))), ...replacements];
}

/**
 * Builds the root module: a global core module (config, gates, logger, health/readiness registries, embedded
 * environment and its Event TTL job, kubeconfig), controller-runtime's module (client, cache, Manager, metrics registry), the in-memory
 * provider module (by default in embedded mode; --embedded-provider[=false] decides), and the selected controller modules. An override provider replaces the default with the same token wherever it is defined, and every
 * module sees it because both modules are global.
 */
export function buildManagerModule(config: ManagerConfig, overrides: ManagerOverrides = {}): DynamicModule {
  // A provider app with a second or mismatched @nestjs/core fails here, naming the copies, not later in DI.
  assertNestCompatible();
  const selection = selectControllers(config, overrides.controllers ?? DEFAULT_CONTROLLERS);
  const info: ControllerSelectionInfo = { enabled: selection.enabled, skipped: selection.skipped };
  const extra = overrides.providers ?? [];
  const cr = controllerRuntimeModule(config);
  const crTokens = new Set((cr.providers ?? []).map(tokenOf));
  const crProviders = replaceByToken(
    cr.providers ?? [],
    extra.filter((p) => crTokens.has(tokenOf(p))),
  );
  const coreProviders = replaceByToken(
    [...defaultProviders(config), { provide: CONTROLLER_SELECTION, useValue: info }],
    extra.filter((p) => !crTokens.has(tokenOf(p))),
  );
  const core: DynamicModule = {
    module: ManagerCoreModule,
    global: true,
    // Periodic jobs (the embedded API server's Event TTL) run through @nestjs/schedule's SchedulerRegistry.
    imports: [SCHEDULE_MODULE],
    providers: coreProviders,
    exports: coreProviders.map((p) => tokenOf(p) as string | symbol),
  };
  // The embedded default also runs the in-memory provider and the reference updater, so `npm start` shows the flow;
  // --embedded-provider runs them against a real management cluster too.
  const embedded = config.embeddedProvider
    ? [
        EmbeddedProviderModule.forRoot({
          workloadServers: config.embeddedWorkloadServers,
          ...overrides.embeddedProvider,
        }),
      ]
    : [];
  return {
    module: ManagerModule,
    imports: [
      core,
      { ...cr, providers: crProviders },
      WorkloadClusterClientOptionsModule.forRoot({ rateLimit: config.clusterCacheClientRateLimit }),
      ...embedded,
      // --live-view-address: the page following rollouts, on the manager's own informers.
      ...(config.liveView ? [LiveViewModule.forRoot({ address: config.liveView })] : []),
      ...selection.modules,
      ...(overrides.modules ?? []),
    ],
  };
}
