// Seam between the server and the schema (../schema) and merge (../merge) engines: the server talks to this one
// object, so the engines' error types are translated in one place.
import type { KubeObject } from '@capi/apimachinery';
import * as merge from '../merge';
import * as schema from '../schema';

export type OpenApiSchema = schema.OpenApiSchema;
export type FieldError = schema.FieldError;
export type Conflict = merge.Conflict;
/** Merge-engine arguments; `ignoreStatus` is true for kinds with a status subresource. */
export type ApplyArgs = merge.ApplyArgs;
export type UpdateArgs = merge.UpdateArgs;

export interface Engines {
  pruneUnknownFields(obj: unknown, schema: OpenApiSchema): unknown;
  applyDefaults(obj: unknown, schema: OpenApiSchema): unknown;
  /** applyDefaults without the copy, for a value the caller owns. */
  applyDefaultsInPlace(obj: unknown, schema: OpenApiSchema): unknown;
  validate(obj: unknown, schema: OpenApiSchema): FieldError[];
  validateCrdSchema(schema: OpenApiSchema): FieldError[];
  builtinSchema(apiVersion: string, kind: string): OpenApiSchema | undefined;
  validateObjectMeta(meta: unknown, namespaced: boolean, names?: 'dns1123Subdomain' | 'pathSegment'): FieldError[];
  applyIntent(a: ApplyArgs): KubeObject;
  trackUpdate(a: UpdateArgs): KubeObject;
  /** The conflicts of the merge engine's conflict error, undefined for other errors. */
  conflictsOf(err: unknown): Conflict[] | undefined;
  /** The merge engine's bad-input error (e.g. duplicate list-map keys) as field path and message. */
  invalidOf(err: unknown): { field: string; message: string } | undefined;
}

export const engines: Engines = {
  pruneUnknownFields: schema.pruneUnknownFields,
  applyDefaults: schema.applyDefaults,
  applyDefaultsInPlace: schema.applyDefaultsInPlace,
  validate: schema.validate,
  validateCrdSchema: schema.validateCrdSchema,
  builtinSchema: schema.builtinSchema,
  validateObjectMeta: schema.validateObjectMeta,
  applyIntent: merge.applyIntent,
  trackUpdate: merge.trackUpdate,
  conflictsOf: (e) => (e instanceof merge.ApplyConflictError ? e.conflicts : undefined),
  invalidOf: (e) => (e instanceof merge.MergeError ? { field: e.field, message: e.message } : undefined),
};
