// NestJS module of the Cluster controller. Needs ControllerRuntimeModule (global) in the app; imports the shared
// WorkloadClusterCacheModule for the workload clusters' health (RemoteConnectionProbe).
import { Module, type DynamicModule, type Provider, type Type } from '@nestjs/common';
import { RECONCILER_FOR, type ControllerOptions } from '@capi/controller-runtime';
import { WorkloadClusterCacheModule } from '@capi/clustercache';
import { ClusterReconciler } from './cluster.reconciler';
import { CLUSTER_CONTROLLER_OPTIONS, type ClusterControllerOptions } from './options';

/** The reconciler class with its controller's maxConcurrentReconciles replaced (the decorator's options are static). */
function withConcurrency(n: number): Type<ClusterReconciler> {
  class ConfiguredClusterReconciler extends ClusterReconciler {}
  const base = Reflect.getMetadata(RECONCILER_FOR, ClusterReconciler) as ControllerOptions;
  Reflect.defineMetadata(RECONCILER_FOR, { ...base, maxConcurrentReconciles: n }, ConfiguredClusterReconciler);
  return ConfiguredClusterReconciler;
}

@Module({})
export class ClusterControllerModule {
  static forRoot(options: ClusterControllerOptions = {}): DynamicModule {
    const providers: Provider[] = [
      { provide: CLUSTER_CONTROLLER_OPTIONS, useValue: options },
      options.maxConcurrentReconciles
        ? { provide: ClusterReconciler, useClass: withConcurrency(options.maxConcurrentReconciles) }
        : ClusterReconciler,
    ];
    return {
      module: ClusterControllerModule,
      imports: [WorkloadClusterCacheModule, ...(options.imports ?? [])],
      providers,
      exports: [ClusterReconciler],
    };
  }
}
