export { patchStatus, CONDITIONS_PATCH_ATTEMPTS, type StatusPatchOptions } from './status-patch';
export { createMergePatch, jsonEqual } from './merge-patch';
export { changedConditionTypes, rebaseConditions } from './conditions-rebase';
