export { MachineHealthCheckControllerModule } from './mhc-controller.module';
export { type MachineHealthCheckControllerOptions, MHC_CONTROLLER_OPTIONS, MHC_FIELD_MANAGER } from './options';
export type { TargetHealth } from './evaluate';
export { decideMachineMarking, type MachineMarking, type MarkingContext } from './marking';
