// NestJS module bundling the in-memory infrastructure + bootstrap provider (needs ControllerRuntimeModule.forRoot).
import {
  Inject,
  Injectable,
  Logger,
  Module,
  Optional,
  type DynamicModule,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import {
  CACHE,
  CACHED_CLIENT,
  KUBE_CLIENT,
  MANAGER,
  type Client,
  type InformerCache,
  type Manager,
} from '@capi/controller-runtime';
import type { RunningInPlaceUpdater } from '@capi/inplace-updater';
import {
  INMEMORY_HOST_BACKEND,
  INMEMORY_INPLACE_UPDATER,
  INMEMORY_OPTIONS,
  WORKLOAD_CLUSTERS,
  type InMemoryProviderOptions,
  workloadPodsOptions,
} from './options';
import { WorkloadClusters } from './workload/workload-clusters';
import { ChildProcessWorkloadServerHost } from './workload/child-process-host';
import {
  WORKLOAD_CLUSTER_CLIENT_PROVIDER,
  kubeconfigSecretClientProvider,
  type WorkloadClusterClientProvider,
} from '@capi/clustercache';
import { WorkloadNodeHostBackend, type InMemoryHostBackend } from './host/backend';
import { startInMemoryInPlaceUpdater } from './host/updater';
import { InMemoryClusterReconciler } from './cluster/inmemory-cluster.reconciler';
import { InMemoryMachineReconciler } from './machine/inmemory-machine.reconciler';
import { KubeadmConfigReconciler } from './bootstrap/kubeadm-config.reconciler';
import { registerInMemoryKinds } from './api/register';
import { INMEMORY_CLUSTER_CONTROLLER, INMEMORY_MACHINE_CONTROLLER } from './api/constants';
import { lostClusterRequests } from './workload/lost-cluster-requests';

/**
 * Brings a lost workload cluster back (its servers' child process died): reconciles its InMemoryCluster and
 * InMemoryMachines. Stops what the module started: the updater, the workload API servers, cached workload clients.
 */
@Injectable()
class InMemoryProviderLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  private unsubscribe?: () => void;

  constructor(
    @Inject(WORKLOAD_CLUSTERS) private readonly workloads: WorkloadClusters,
    @Inject(WORKLOAD_CLUSTER_CLIENT_PROVIDER)
    private readonly clients: ReturnType<typeof kubeconfigSecretClientProvider>,
    @Inject(CACHE) private readonly cache: InformerCache,
    @Inject(MANAGER) private readonly manager: Manager,
    @Optional() @Inject(INMEMORY_INPLACE_UPDATER) private readonly updater?: RunningInPlaceUpdater,
  ) {}

  onApplicationBootstrap(): void {
    this.unsubscribe = this.workloads.onLost((key) => {
      const { inMemoryClusters, inMemoryMachines } = lostClusterRequests(this.cache, key);
      for (const req of inMemoryClusters) this.manager.controller(INMEMORY_CLUSTER_CONTROLLER)?.queue.add(req);
      for (const req of inMemoryMachines) this.manager.controller(INMEMORY_MACHINE_CONTROLLER)?.queue.add(req);
    });
  }

  async onApplicationShutdown(): Promise<void> {
    this.unsubscribe?.();
    await this.updater?.stop();
    this.clients.closeAll();
    await this.workloads.stopAll();
  }
}

@Module({})
export class InMemoryProviderModule {
  static forRoot(options: InMemoryProviderOptions = {}): DynamicModule {
    registerInMemoryKinds();
    const updaterOptions = options.inPlaceUpdater || undefined;
    return {
      module: InMemoryProviderModule,
      providers: [
        { provide: INMEMORY_OPTIONS, useValue: options },
        {
          provide: WORKLOAD_CLUSTERS,
          inject: [KUBE_CLIENT],
          useFactory: (client: Client) => {
            const log = new Logger('WorkloadClusters');
            const logger = { info: (m: string) => log.log(m), error: (m: string) => log.error(m) };
            return new WorkloadClusters(client, {
              logger,
              pods: workloadPodsOptions(options),
              servers:
                options.workloadServers === 'child-process'
                  ? new ChildProcessWorkloadServerHost({ logger })
                  : undefined,
            });
          },
        },
        {
          provide: WORKLOAD_CLUSTER_CLIENT_PROVIDER,
          inject: [CACHED_CLIENT],
          // The Machine controller's Secret-based provider: workload clusters are reached only through their kubeconfig.
          useFactory: (client: Client) => kubeconfigSecretClientProvider(client),
        },
        {
          provide: INMEMORY_HOST_BACKEND,
          inject: [WORKLOAD_CLUSTER_CLIENT_PROVIDER, KUBE_CLIENT],
          // Secrets are read directly (not cached), as the bootstrap controller reads them.
          useFactory: (clients: WorkloadClusterClientProvider, direct: Client) =>
            new WorkloadNodeHostBackend(clients, {
              nodeNotReadyDuringUpdate: updaterOptions?.nodeNotReadyDuringUpdate,
              secrets: direct,
              now: options.now && (() => new Date(options.now!())),
            }),
        },
        {
          provide: INMEMORY_INPLACE_UPDATER,
          inject: [INMEMORY_HOST_BACKEND],
          useFactory: async (backend: InMemoryHostBackend) => {
            if (!updaterOptions) return undefined;
            const { nodeNotReadyDuringUpdate: _n, ...rest } = updaterOptions;
            return startInMemoryInPlaceUpdater({ ...rest, now: options.now, backend });
          },
        },
        InMemoryProviderLifecycle,
        InMemoryClusterReconciler,
        InMemoryMachineReconciler,
        KubeadmConfigReconciler,
      ],
      exports: [
        INMEMORY_OPTIONS,
        WORKLOAD_CLUSTERS,
        WORKLOAD_CLUSTER_CLIENT_PROVIDER,
        INMEMORY_HOST_BACKEND,
        INMEMORY_INPLACE_UPDATER,
      ],
    };
  }
}
