export { patchStatus, CONDITIONS_PATCH_ATTEMPTS, type StatusPatchOptions } from './status-patch';
