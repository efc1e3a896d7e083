// Everything the example provider adds to the manager: its kinds, its infrastructure controller and its
// in-process in-place updater (registered by DI under IN_PLACE_UPDATERS).
import { Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { KUBE_CLIENT, type Client } from '@capi/controller-runtime';
import { IN_PLACE_UPDATERS } from '@capi/runtime-client';
import { registerExampleKinds } from './api';
import { ExampleMachineReconciler } from './example-machine.reconciler';
import { ExampleUpdater } from './example-updater';
import { WorkloadClients } from './workload';

registerExampleKinds();

@Module({
  providers: [
    { provide: WorkloadClients, inject: [KUBE_CLIENT], useFactory: (client: Client) => new WorkloadClients(client) },
    ExampleMachineReconciler,
    { provide: IN_PLACE_UPDATERS, useClass: ExampleUpdater },
  ],
})
export class ExampleProviderModule implements OnApplicationShutdown {
  constructor(@Inject(WorkloadClients) private readonly workloads: WorkloadClients) {}

  onApplicationShutdown(): void {
    this.workloads.close();
  }
}
