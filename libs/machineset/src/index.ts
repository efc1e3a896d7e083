// MachineDeployment rollout planner (pure) and its golden-log simulation.
export * from './rollout';

// MachineSet / MachineDeployment controllers (NestJS modules) and their pure decisions.
export { MachineSetModule } from './module';
export { MachineSetControllerModule } from './machineset/machineset.module';
export { MachineDeploymentControllerModule } from './machinedeployment/machinedeployment.module';
export type { MachineSetControllersOptions } from './options';
export { MachineSetReconciler, MACHINESET_CLOCK, MACHINESET_REMEDIATION_FIELD_MANAGER } from './machineset/reconciler';
export {
  planRemediation,
  remediatingCondition,
  remediationMaxInFlight,
  remediationPausedReason,
  sortMachinesToRemediate,
  isUnhealthyAndOwnerRemediated,
  RemediationConfigError,
  MACHINESET_MACHINE_CANNOT_BE_REMEDIATED_REASON,
  MACHINESET_MACHINE_REMEDIATION_DEFERRED_REASON,
  MACHINESET_MACHINE_REMEDIATION_MACHINE_DELETING_REASON,
  MACHINESET_REMEDIATING_REASON,
  MACHINESET_NOT_REMEDIATING_REASON,
  type RemediationPlan,
  type RemediationInput,
  type OwnerRemediatedUpdate,
} from './machineset/remediation';
export {
  MACHINESET_FIELD_MANAGER,
  startInPlaceUpdate,
  startInPlaceUpdatePatch,
  desiredMachineForInPlaceUpdate,
  desiredObjectForInPlaceUpdate,
} from './machineset/inplace-start';
export {
  DeletePriority,
  deletePriorityFunc,
  sortByDeletePriority,
  machinesToDeletePrioritized,
  isMachineHealthyForDeletion,
  UnsupportedDeletionOrderError,
  type DeletePriorityFunc,
} from './machineset/deletion-order';
export {
  shouldStartInPlaceUpdate,
  machinesToStartInPlaceUpdate,
  replicaDelta,
  checkMoveHandshake,
  planMoves,
  planDeletions,
  movePatch,
  MoveError,
  type HandshakeResult,
  type MovePlan,
} from './machineset/moves';
export { computeMachineSetStatus, isMachineAvailable } from './machineset/status';
export {
  computeDesiredMachine,
  selectorProblem,
  objectFromTemplate,
  kindFromTemplateKind,
  machineLabels,
  generateName,
  formatLabelValue,
  TemplateError,
} from './machineset/desired';
export {
  MachineDeploymentReconciler,
  MACHINEDEPLOYMENT_FIELD_MANAGER,
  MACHINEDEPLOYMENT_CLOCK,
  MACHINEDEPLOYMENT_OPTIONS,
  type MachineDeploymentControllerOptions,
} from './machinedeployment/reconciler';
export {
  MachineSetInPlaceChecker,
  canUpdateCacheKey,
  DEFAULT_CAN_UPDATE_CACHE_TTL_MS,
  TemplateNotFoundError,
  type MachineSetInPlaceCheckerDeps,
} from './machinedeployment/can-update';
export { computeDesiredMachineSet, computeTemplateHash, machineSetApplyIntent } from './machinedeployment/desired-ms';
export { machineSetWrites, drainedOldMachineSets, type MachineSetWrite } from './machinedeployment/plan-writes';
export { computeMachineDeploymentStatus, type MachineDeploymentStatusInput } from './machinedeployment/status';
