export { PatchApplyError } from './apply-patch';
export {
  canExtensionsUpdate,
  type CanExtensionsUpdateInput,
  type CanExtensionsUpdateResult,
  type CoverageComparator,
  CoverageError,
  type CoverageHook,
  type CoverageRequest,
  type CoverageRuntimeClient,
  type UncoveredFields,
} from './coverage';
export { formatDiff } from './diff';
export { markAsDone, markAsPending } from './tracking';
export { HookRetryCache, type HookRetryEntry } from './retry-cache';
export {
  IN_PLACE_UPDATERS_ANNOTATION,
  selectUpdateMachineHandlers,
  type UpdateMachineSelection,
  updatersAnnotation,
} from './updaters';
export {
  blocksReplacements,
  type BlockedRollout,
  formatUncovered,
  IN_PLACE_ONLY_ROLLOUT_POLICY,
  ROLLOUT_BLOCKED_CONDITION,
  ROLLOUT_POLICY_ANNOTATION,
  rolloutBlockedCondition,
  type RolloutBlockedConditionInput,
  RolloutBlockedReason,
  type RolloutPolicy,
  rolloutPolicyOf,
  updatersOf,
} from './rollout-policy';
