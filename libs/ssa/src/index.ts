export { patch, type SsaPatchOptions, type SsaPatchResult } from './patch';
export { prepareModified, SSA_ALLOWED_PATHS, InvalidApplyIntentError } from './prepare';
export { IntentMemo, intentMemoKey, type IntentMemoKey } from './intent-memo';
export {
  computeRequestIdentifier,
  requestIdentifier,
  gvkString,
  objectKeyString,
  hashObject,
  fnv32a,
} from './identifier';
export {
  SsaCache,
  ssaCacheMetrics,
  DEFAULT_SSA_CACHE_TTL_MS,
  DEFAULT_SSA_CACHE_MAX_ENTRIES,
  type SsaCacheOptions,
  type SsaCacheMetrics,
} from './cache';
export {
  ServerSideApplier,
  SsaModule,
  SSA_CACHE,
  SSA_OPTIONS,
  type SsaModuleOptions,
  type ApplierPatchOptions,
} from './applier';
export { syncLabelsAndAnnotations, labelsAndAnnotationsIntent, type LabelsAndAnnotationsSync } from './metadata-sync';
export { getPath, hasPath, setPath, deletePath, pickPaths, isUnder, type FieldPath } from './paths';
export {
  removeFieldsV1Paths,
  dropLabelsAndAnnotationsOwnership,
  needsManagedFieldsMigration,
  migratedManagedFields,
  mitigatedManagedFields,
  removeManagedFieldsForLabelsAndAnnotations,
  migrateManagedFields,
  mitigateManagedFieldsIssue,
  CLASSIC_MANAGER,
  BEFORE_FIRST_APPLY_MANAGER,
  SEED_FIELDS_V1,
  type FieldsV1,
  type ManagedFieldsWriteOptions,
} from './managedfields';
