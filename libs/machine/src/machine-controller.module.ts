// NestJS module of the Machine controller. Needs ControllerRuntimeModule (global) in the app; RUNTIME_CLIENT (from
// RuntimeClientModule, via `imports`), FEATURE_GATES and SsaModule are optional (in-place calls fail without a runtime client).
import {
  Inject,
  Injectable,
  Module,
  type DynamicModule,
  type OnApplicationShutdown,
  type Provider,
} from '@nestjs/common';
import { MachineReconciler } from './machine.reconciler';
import { MACHINE_CONTROLLER_OPTIONS, type MachineControllerOptions } from './options';
import {
  SHARED_WORKLOAD_CLUSTER_CACHE,
  WORKLOAD_CLUSTER_CACHE,
  WORKLOAD_CLUSTER_CLIENT_PROVIDER,
  WorkloadClusterCache,
  WorkloadClusterCacheModule,
  type WorkloadClusterClientProvider,
} from '@capi/clustercache';

/** Stops the Machine controller's own Node informers (a custom client provider's) with the app. */
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
    const custom = options.workloadClusterClientProvider;
    const providers: Provider[] = [
      { provide: MACHINE_CONTROLLER_OPTIONS, useValue: options },
      ...(custom
        ? [
            { provide: WORKLOAD_CLUSTER_CLIENT_PROVIDER, useValue: custom },
            // Wraps the given client provider; its own cache, as nothing else reads through that provider.
            {
              provide: WORKLOAD_CLUSTER_CACHE,
              inject: [WORKLOAD_CLUSTER_CLIENT_PROVIDER],
              useFactory: (p: WorkloadClusterClientProvider) => new WorkloadClusterCache(p),
            },
            WorkloadClusterCacheLifecycle,
          ]
        : [
            // The manager's shared cache (KCP reads Nodes through it too) and the client provider behind it.
            { provide: WORKLOAD_CLUSTER_CACHE, useExisting: SHARED_WORKLOAD_CLUSTER_CACHE },
            {
              provide: WORKLOAD_CLUSTER_CLIENT_PROVIDER,
              inject: [SHARED_WORKLOAD_CLUSTER_CACHE],
              useFactory: (c: WorkloadClusterCache) => c.clients,
            },
          ]),
      MachineReconciler,
    ];
    return {
      module: MachineControllerModule,
      imports: [...(custom ? [] : [WorkloadClusterCacheModule]), ...(options.imports ?? [])],
      providers,
      exports: [MachineReconciler, WORKLOAD_CLUSTER_CLIENT_PROVIDER, WORKLOAD_CLUSTER_CACHE],
    };
  }
}
