export { applyPatchToObject, PatchApplyError, MACHINE_PATCH_PATHS, MACHINE_SET_PATCH_PATHS } from './apply-patch';
export {
  canExtensionsUpdate,
  compareForCoverage,
  CoverageError,
  type CoverageHook,
  type CoverageRequest,
  type CoverageRuntimeClient,
  type CoverageComparator,
  type CanExtensionsUpdateInput,
  type CanExtensionsUpdateResult,
} from './coverage';
export { diffPaths, formatDiff } from './diff';
export { markAsPending, markAsDone } from './tracking';
export { HookRetryCache, type HookRetryEntry } from './retry-cache';
export {
  IN_PLACE_UPDATERS_ANNOTATION,
  extensionConfigOfHandler,
  orderExtensions,
  recordedUpdaters,
  selectUpdateMachineHandlers,
  updatersAnnotation,
  type UpdateMachineSelection,
} from './updaters';
