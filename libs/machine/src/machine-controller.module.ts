// NestJS module of the Machine controller. Needs ControllerRuntimeModule (global) in the app; RUNTIME_CLIENT (from
// RuntimeClientModule, via `imports`), FEATURE_GATES and SsaModule are optional (in-place calls fail without a runtime client).
import { Module, type DynamicModule, type Provider } from '@nestjs/common';
import { CACHED_CLIENT, type Client } from '@capi/controller-runtime';
import { MachineReconciler } from './machine.reconciler';
import { MACHINE_CONTROLLER_OPTIONS, type MachineControllerOptions } from './options';
import { kubeconfigSecretClientProvider, WORKLOAD_CLUSTER_CLIENT_PROVIDER } from './workload-cluster';

@Module({})
export class MachineControllerModule {
  static forRoot(options: MachineControllerOptions = {}): DynamicModule {
    const providers: Provider[] = [
      { provide: MACHINE_CONTROLLER_OPTIONS, useValue: options },
      options.workloadClusterClientProvider
        ? { provide: WORKLOAD_CLUSTER_CLIENT_PROVIDER, useValue: options.workloadClusterClientProvider }
        : { provide: WORKLOAD_CLUSTER_CLIENT_PROVIDER, inject: [CACHED_CLIENT], useFactory: (c: Client) => kubeconfigSecretClientProvider(c) },
      MachineReconciler,
    ];
    return { module: MachineControllerModule, imports: options.imports ?? [], providers, exports: [MachineReconciler, WORKLOAD_CLUSTER_CLIENT_PROVIDER] };
  }
}

/** Name the manager's controller registry looks up. */
export const MachineModule = MachineControllerModule;
