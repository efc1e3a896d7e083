export { CONDITIONS_PATCH_ATTEMPTS, patchStatus, type StatusPatchOptions } from './status-patch';
