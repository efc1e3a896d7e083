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
