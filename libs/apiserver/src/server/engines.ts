// Seam between the server and the schema/merge engines (written in ../schema and ../merge by other helpers).
// Until schema lands, a minimal fallback keeps the server usable; merge is the real engine.
import type { KubeObject } from '@capi/controller-runtime';
import * as merge from '../merge';

export type OpenApiSchema = Record<string, any>;
export interface FieldError { type: string; field: string; message: string }
export interface Conflict { manager: string; field: string; message?: string }

export interface ApplyArgs { live: KubeObject | undefined; intent: KubeObject; manager: string; force: boolean; schema: OpenApiSchema | undefined; subresource?: 'status'; now: string; ignoreStatus?: boolean }
export interface UpdateArgs { live: KubeObject | undefined; updated: KubeObject; manager: string; schema: OpenApiSchema | undefined; subresource?: 'status'; now: string; ignoreStatus?: boolean }

export interface Engines {
  pruneUnknownFields(obj: unknown, schema: OpenApiSchema): unknown;
  applyDefaults(obj: unknown, schema: OpenApiSchema): unknown;
  validate(obj: unknown, schema: OpenApiSchema): FieldError[];
  validateCrdSchema(schema: OpenApiSchema): FieldError[];
  builtinSchema(apiVersion: string, kind: string): OpenApiSchema | undefined;
  validateObjectMeta(meta: unknown, namespaced: boolean): FieldError[];
  applyIntent(a: ApplyArgs): KubeObject;
  trackUpdate(a: UpdateArgs): KubeObject;
  /** Recognises the merge engine's conflict error. */
  conflictsOf(err: unknown): Conflict[] | undefined;
  /** Recognises the merge engine's bad-input error (e.g. duplicate list-map keys): field path and message. */
  invalidOf(err: unknown): { field: string; message: string } | undefined;
}

const isMap = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);

function deepMerge(base: unknown, over: unknown): unknown {
  if (!isMap(base) || !isMap(over)) return over;
  const out: Record<string, any> = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = deepMerge(base[k], v);
  return out;
}

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function upsertManager(obj: KubeObject, manager: string, operation: 'Apply' | 'Update', now: string, subresource?: string): KubeObject {
  const entries = (obj.metadata.managedFields ?? []).filter(
    (e) => !(e.manager === manager && e.operation === operation && (e.subresource ?? '') === (subresource ?? '')),
  );
  entries.push({ manager, operation, apiVersion: obj.apiVersion, time: now, fieldsType: 'FieldsV1', fieldsV1: {}, ...(subresource ? { subresource } : {}) });
  return { ...obj, metadata: { ...obj.metadata, managedFields: entries } };
}

/** Minimal stand-ins: no pruning/defaulting/field ownership, only name checks. Replaced by the real engines. */
const fallback: Engines = {
  pruneUnknownFields: (o) => o,
  applyDefaults: (o) => o,
  validate: () => [],
  validateCrdSchema: () => [],
  builtinSchema: () => undefined,
  validateObjectMeta: (meta: any) =>
    meta?.name && !DNS1123_SUBDOMAIN.test(meta.name)
      ? [{ type: 'FieldValueInvalid', field: 'metadata.name', message: `Invalid value: "${meta.name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.'` }]
      : [],
  applyIntent: (a) => {
    const merged = deepMerge(a.live ?? {}, a.intent) as KubeObject;
    return upsertManager(merged, a.manager, 'Apply', a.now, a.subresource);
  },
  trackUpdate: (a) => upsertManager(a.updated, a.manager, 'Update', a.now, a.subresource),
  conflictsOf: () => undefined,
  invalidOf: () => undefined,
};

export const engines: Engines = {
  ...fallback,
  applyIntent: merge.applyIntent,
  trackUpdate: merge.trackUpdate,
  conflictsOf: (e) => (e instanceof merge.ApplyConflictError ? e.conflicts : undefined),
  invalidOf: (e) => (e instanceof merge.MergeError ? { field: e.field, message: e.message } : undefined),
};
