// The lib's entry module: the MachineSet and MachineDeployment controllers together, what the manager's `machineset`
// controller loads. Each controller's own module is in its folder.
import { Module, type DynamicModule } from '@nestjs/common';
import { MachineDeploymentControllerModule } from './machinedeployment/machinedeployment.module';
import { MachineSetControllerModule } from './machineset/machineset.module';
import type { MachineSetControllersOptions } from './options';

@Module({})
export class MachineSetModule {
  static forRoot(options: MachineSetControllersOptions = {}): DynamicModule {
    return {
      module: MachineSetModule,
      imports: [MachineSetControllerModule.forRoot(options), MachineDeploymentControllerModule.forRoot(options)],
    };
  }
}
