// NestJS module of the KubeadmControlPlane controller. Needs ControllerRuntimeModule (global), FEATURE_GATES and
// SsaModule in the app; RUNTIME_CLIENT (via `imports`) for in-place updates.
import {
  Inject,
  Injectable,
  Module,
  type DynamicModule,
  type OnApplicationShutdown,
  type Provider,
} from '@nestjs/common';
import { SHARED_WORKLOAD_CLUSTER_CACHE, WorkloadClusterCache, WorkloadClusterCacheModule } from '@capi/clustercache';
import { CACHED_CLIENT, SECRET_CACHING_CLIENT, type Client } from '@capi/controller-runtime';
import { etcdClientGeneratorFactory } from './etcd-access';
import { KubeadmControlPlaneReconciler } from './kcp.reconciler';
import { KCP_CONTROLLER_OPTIONS, type KcpControllerOptions } from './options';
import {
  KCP_WORKLOAD_CLUSTER_PROVIDER,
  KubeconfigWorkloadClusterProvider,
  type WorkloadClusterProvider,
} from './workload-cluster';

@Injectable()
class WorkloadClusterProviderLifecycle implements OnApplicationShutdown {
  constructor(@Inject(KCP_WORKLOAD_CLUSTER_PROVIDER) private readonly provider: WorkloadClusterProvider) {}

  async onApplicationShutdown(): Promise<void> {
    await this.provider.close?.();
  }
}

@Module({})
export class KcpControllerModule {
  static forRoot(options: KcpControllerOptions = {}): DynamicModule {
    const providers: Provider[] = [
      { provide: KCP_CONTROLLER_OPTIONS, useValue: options },
      options.workloadClusterProvider
        ? { provide: KCP_WORKLOAD_CLUSTER_PROVIDER, useValue: options.workloadClusterProvider }
        : // Nodes through the manager's shared cache (the Machine controller's too): one informer per workload cluster.
          {
            provide: KCP_WORKLOAD_CLUSTER_PROVIDER,
            inject: [SHARED_WORKLOAD_CLUSTER_CACHE, CACHED_CLIENT, SECRET_CACHING_CLIENT],
            useFactory: (c: WorkloadClusterCache, management: Client, secretCaching: Client) =>
              new KubeconfigWorkloadClusterProvider(
                c,
                options.etcdClientGeneratorFactory ??
                  etcdClientGeneratorFactory(
                    management,
                    { dialTimeoutMs: options.etcdDialTimeoutMs, callTimeoutMs: options.etcdCallTimeoutMs },
                    secretCaching,
                  ),
              ),
          },
      WorkloadClusterProviderLifecycle,
      KubeadmControlPlaneReconciler,
    ];
    const imports = [
      ...(options.workloadClusterProvider ? [] : [WorkloadClusterCacheModule]),
      ...(options.imports ?? []),
    ];
    return {
      module: KcpControllerModule,
      imports,
      providers,
      exports: [KubeadmControlPlaneReconciler, KCP_WORKLOAD_CLUSTER_PROVIDER],
    };
  }
}
