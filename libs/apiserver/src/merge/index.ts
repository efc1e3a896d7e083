export { applyIntent, trackUpdate, ApplyConflictError, BEFORE_FIRST_APPLY } from './apply';
export type { ApplyArgs, UpdateArgs, Conflict } from './apply';
export { FieldSet, MergeError, formatPath } from './fieldset';
export type { FieldPath, PathElement } from './fieldset';
export { toFieldSet, compare } from './walk';
export { rootSchema } from './types';
