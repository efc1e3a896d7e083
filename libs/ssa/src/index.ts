export { patch, type SsaPatchOptions, type SsaPatchResult } from './patch';
export { IntentMemo, intentMemoKey, type IntentMemoKey } from './intent-memo';
export { SsaCache, type SsaCacheOptions } from './cache';
export {
  type ApplierPatchOptions,
  ServerSideApplier,
  SSA_CACHE,
  SSA_OPTIONS,
  SsaModule,
  type SsaModuleOptions,
} from './applier';
export { type LabelsAndAnnotationsSync, syncLabelsAndAnnotations } from './metadata-sync';
export {
  type FieldsV1,
  labelsAndAnnotationsHandOverNeeded,
  type ManagedFieldsWriteOptions,
  migrateManagedFields,
  mitigateManagedFieldsIssue,
  removeManagedFieldsForLabelsAndAnnotations,
} from './managedfields';
