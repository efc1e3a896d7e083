export { MachineControllerModule } from './machine-controller.module';
export { MachineReconciler } from './machine.reconciler';
export {
  MACHINE_CONTROLLER_NAME,
  MACHINE_FIELD_MANAGER,
  MACHINE_CONTROLLER_OPTIONS,
  type MachineControllerOptions,
} from './options';
export {
  decideInPlaceStep,
  decideAfterUpdateMachine,
  type InPlaceState,
  type InPlaceAction,
  type UpdateMachineOutcome,
} from './inplace-decision';
