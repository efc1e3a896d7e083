export type { OpenApiSchema, FieldError, FieldErrorType } from './types';
export { validate } from './validate';
export { applyDefaults, applyDefaultsInPlace } from './defaults';
export { pruneUnknownFields } from './prune';
export { validateCrdSchema } from './structural';
export { builtinSchema } from './builtin';
export { validateObjectMeta } from './objectmeta';
