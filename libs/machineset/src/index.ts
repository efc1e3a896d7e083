// MachineDeployment rollout planner (pure) and its golden-log simulation.
export {
  type CanUpdateMachineSetInPlace,
  type ComputeDesiredMachineSet,
  describeFirstDifference,
  goldenPath,
  goldenRoot,
  headerName,
  heldOutScenarios,
  type InitialMachineSet,
  type IntOrString,
  type MachineDeploymentLike,
  type MachineLike,
  type MachineSetDiff,
  type MachineSetLike,
  type MachineSpecLike,
  maxSurge,
  maxUnavailable,
  type MachineTemplateSpecLike,
  type ObjectMetaLike,
  type ObjectReferenceLike,
  onDeleteScenarios,
  type OwnerReferenceLike,
  planOnDelete,
  type PlanOptions,
  planRollingUpdate,
  planRollingUpdateSync,
  rollingUpdateScenarios,
  type RolloutPlan,
  RolloutPlanner,
  type RolloutPlannerOptions,
  type RolloutSimulationOptions,
  type RolloutSimulationResult,
  type RolloutSnapshot,
  type RolloutStrategyType,
  runRolloutSimulation,
  type UpToDateResult,
} from './rollout';

// MachineSet / MachineDeployment controllers (NestJS modules) and their pure decisions.
export { MachineSetModule } from './module';
export type { MachineSetControllersOptions } from './options';
export { MACHINESET_CLOCK } from './machineset/reconciler';
export { MACHINEDEPLOYMENT_CLOCK, MACHINEDEPLOYMENT_OPTIONS } from './machinedeployment/reconciler';
// The MachineDeployment's rollout decision and its CanUpdateMachineSet check, for tools that plan without writing
// (`capi-inplace rollout plan`).
export {
  type MachineSetCoverage,
  MachineSetInPlaceChecker,
  type MachineSetInPlaceCheckerDeps,
  TemplateNotFoundError,
} from './machinedeployment/can-update';
export { type MachineDeploymentPlanInput, planMachineDeploymentRollout } from './machinedeployment/plan-rollout';
