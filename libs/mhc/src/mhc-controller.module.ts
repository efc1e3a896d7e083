// NestJS module of the MachineHealthCheck controller. Needs ControllerRuntimeModule (global) in the app; SsaModule is optional.
import { Module, type DynamicModule, type Provider } from '@nestjs/common';
import { CACHED_CLIENT, type Client } from '@capi/controller-runtime';
import {
  kubeconfigSecretClientProvider,
  WORKLOAD_CLUSTER_CLIENT_OPTIONS,
  WORKLOAD_CLUSTER_CLIENT_PROVIDER,
  type WorkloadClusterClientOptions,
} from '@capi/clustercache';
import { MachineHealthCheckReconciler } from './mhc.reconciler';
import { MHC_CONTROLLER_OPTIONS, type MachineHealthCheckControllerOptions } from './options';

@Module({})
export class MachineHealthCheckControllerModule {
  static forRoot(options: MachineHealthCheckControllerOptions = {}): DynamicModule {
    const providers: Provider[] = [
      { provide: MHC_CONTROLLER_OPTIONS, useValue: options },
      options.workloadClusterClientProvider
        ? { provide: WORKLOAD_CLUSTER_CLIENT_PROVIDER, useValue: options.workloadClusterClientProvider }
        : {
            provide: WORKLOAD_CLUSTER_CLIENT_PROVIDER,
            inject: [CACHED_CLIENT, { token: WORKLOAD_CLUSTER_CLIENT_OPTIONS, optional: true }],
            useFactory: (c: Client, clientOptions?: WorkloadClusterClientOptions) =>
              kubeconfigSecretClientProvider(c, clientOptions),
          },
      MachineHealthCheckReconciler,
    ];
    return {
      module: MachineHealthCheckControllerModule,
      imports: options.imports ?? [],
      providers,
      exports: [MachineHealthCheckReconciler],
    };
  }
}
