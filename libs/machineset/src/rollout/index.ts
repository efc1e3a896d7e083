// Public API of the MachineDeployment rollout planner.
export * from './types';
export {
  RolloutPlanError,
  scaledValueFromIntOrPercent,
  resolveFenceposts,
  maxSurge,
  maxUnavailable,
  newMSNewReplicas,
  machineTemplateUpToDate,
  findNewAndOldMachineSets,
  computeRevisionAnnotations,
} from './mdutil';
export type { UpToDateResult, NewAndOldMachineSets } from './mdutil';
export { RolloutPlanner, defaultComputeDesiredMachineSet } from './planner';
export type {
  CanUpdateMachineSetInPlace,
  ComputeDesiredMachineSet,
  RolloutPlannerOptions,
  MachineSetDiff,
} from './planner';
export { planRollingUpdate, planRollingUpdateSync, planOnDelete } from './plan';
export type { RolloutSnapshot, RolloutPlan, PlanOptions } from './plan';
export { isControlledBy, isUpdateInProgress } from './rollingupdate';
export { simulateRollout, runRolloutSimulation, defaultScenarioName } from './sim/simulate';
export type { RolloutSimulationOptions, RolloutSimulationResult, InitialMachineSet } from './sim/simulate';
export { SimulationError } from './sim/fakes';
export { GoRand } from './sim/gorand';
export { FileLogger, LogLimitExceededError, DEFAULT_MAX_LOG_CHARS } from './sim/logger';
export type { FileLoggerOptions } from './sim/logger';
export { goldenRoot, goldenPath, headerName, describeFirstDifference, findRepoRoot } from './sim/goldens';
export { rollingUpdateScenarios, onDeleteScenarios, heldOutScenarios } from './sim/scenarios';
