// One WorkloadClusterCache per manager (upstream: one ClusterCache shared by every controller). The Machine and KCP
// modules both import this module; Nest instantiates a static module once per app, so both get the same cache and a
// workload cluster's Nodes are watched and held in memory once, not once per controller. Its health probe runs as
// a @nestjs/schedule interval job (the one shared ScheduleModule of @capi/controller-runtime). Kubeconfig Secrets are read
// through the secret-caching client, as upstream's ClusterCache reads them (its SecretClient).
import { Global, Inject, Injectable, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import { SCHEDULE_MODULE, SECRET_CACHING_CLIENT, type Client } from '@capi/controller-runtime';
import { workloadClusterHealthProbeJob } from './health-probe.job';
import {
  kubeconfigSecretClientProvider,
  WORKLOAD_CLUSTER_CLIENT_OPTIONS,
  type WorkloadClusterClientOptions,
} from './workload-cluster';
import { WorkloadClusterCache } from './workload-cluster-cache';

/** Injection token of the manager's shared WorkloadClusterCache (its clients come from the kubeconfig Secrets). */
export const SHARED_WORKLOAD_CLUSTER_CACHE = Symbol.for('capi.SharedWorkloadClusterCache');

/** Stops the Node informers, then the clients their watches use, with the app. */
@Injectable()
class SharedWorkloadClusterCacheLifecycle implements OnApplicationShutdown {
  constructor(@Inject(SHARED_WORKLOAD_CLUSTER_CACHE) private readonly cache: WorkloadClusterCache) {}

  async onApplicationShutdown(): Promise<void> {
    await this.cache.closeAll();
    (this.cache.clients as { closeAll?: () => void }).closeAll?.();
  }
}

@Module({
  imports: [SCHEDULE_MODULE],
  providers: [
    {
      provide: SHARED_WORKLOAD_CLUSTER_CACHE,
      inject: [SECRET_CACHING_CLIENT, { token: WORKLOAD_CLUSTER_CLIENT_OPTIONS, optional: true }],
      useFactory: (c: Client, options?: WorkloadClusterClientOptions) =>
        new WorkloadClusterCache(kubeconfigSecretClientProvider(c, options)),
    },
    SharedWorkloadClusterCacheLifecycle,
    workloadClusterHealthProbeJob(SHARED_WORKLOAD_CLUSTER_CACHE),
  ],
  exports: [SHARED_WORKLOAD_CLUSTER_CACHE],
})
export class WorkloadClusterCacheModule {}

/**
 * Provides WORKLOAD_CLUSTER_CLIENT_OPTIONS to every module of the app (the shared cache, MHC's clients): a manager
 * imports it once with its --clustercache-client-* flags.
 */
@Global()
@Module({})
export class WorkloadClusterClientOptionsModule {
  static forRoot(options: WorkloadClusterClientOptions): DynamicModule {
    return {
      module: WorkloadClusterClientOptionsModule,
      global: true,
      providers: [{ provide: WORKLOAD_CLUSTER_CLIENT_OPTIONS, useValue: options }],
      exports: [WORKLOAD_CLUSTER_CLIENT_OPTIONS],
    };
  }
}
