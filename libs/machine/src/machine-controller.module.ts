// NestJS module of the Machine controller. Needs ControllerRuntimeModule (global) in the app; RUNTIME_CLIENT (from
// RuntimeClientModule, via `imports`), FEATURE_GATES and SsaModule are optional (in-place calls fail without a runtime client).
import { Inject, Injectable, Module, type DynamicModule, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import { CACHED_CLIENT, type Client } from '@capi/controller-runtime';
import { MachineReconciler } from './machine.reconciler';
import { MACHINE_CONTROLLER_OPTIONS, type MachineControllerOptions } from './options';
import { kubeconfigSecretClientProvider, WORKLOAD_CLUSTER_CLIENT_PROVIDER, type WorkloadClusterClientProvider } from './workload-cluster';
import { WORKLOAD_CLUSTER_CACHE, WorkloadClusterCache } from './workload-cluster-cache';

/** Stops the workload clusters' Node informers with the app (they hold watches open). */
@Injectable()
class WorkloadClusterCacheLifecycle implements OnApplicationShutdown {
  constructor(@Inject(WORKLOAD_CLUSTER_CACHE) private readonly cache: WorkloadClusterCache) {}

  async onApplicationShutdown(): Promise<void> {
    await this.cache.closeAll();
  }
}

@Module({})
export class MachineControllerModule {
  static forRoot(options: MachineControllerOptions = {}): DynamicModule {
    const providers: Provider[] = [
      { provide: MACHINE_CONTROLLER_OPTIONS, useValue: options },
      options.workloadClusterClientProvider
        ? { provide: WORKLOAD_CLUSTER_CLIENT_PROVIDER, useValue: options.workloadClusterClientProvider }
        : { provide: WORKLOAD_CLUSTER_CLIENT_PROVIDER, inject: [CACHED_CLIENT], useFactory: (c: Client) => kubeconfigSecretClientProvider(c) },
      // Wraps whichever client provider is in place, so a provider swapping WORKLOAD_CLUSTER_CLIENT_PROVIDER keeps working.
      { provide: WORKLOAD_CLUSTER_CACHE, inject: [WORKLOAD_CLUSTER_CLIENT_PROVIDER], useFactory: (p: WorkloadClusterClientProvider) => new WorkloadClusterCache(p) },
      WorkloadClusterCacheLifecycle,
      MachineReconciler,
    ];
    return {
      module: MachineControllerModule,
      imports: options.imports ?? [],
      providers,
      exports: [MachineReconciler, WORKLOAD_CLUSTER_CLIENT_PROVIDER, WORKLOAD_CLUSTER_CACHE],
    };
  }
}

/** Name the manager's controller registry looks up. */
export const MachineModule = MachineControllerModule;
