export { MachineControllerModule } from './machine-controller.module';
export { MACHINE_CONTROLLER_OPTIONS, type MachineControllerOptions } from './options';
