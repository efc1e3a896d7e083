// Pruning as apiextensions-apiserver does it (schema/pruning): fields the structural schema does not
// specify are dropped unless x-kubernetes-preserve-unknown-fields allows them. At the object root and in
// x-kubernetes-embedded-resource objects apiVersion/kind are kept and metadata keeps only ObjectMeta fields.
// Only the structural part counts: allOf/anyOf/oneOf/not never make a field known.
import { OpenApiSchema, isPlainObject } from './types';
import { additionalSchemaOf, propertiesOf } from './values';

/** The fields of metav1.ObjectMeta; anything else under metadata is dropped (kube's ObjectMeta round trip). */
export const OBJECT_META_FIELDS = new Set([
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
]);

const RESOURCE_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

/** Returns a pruned copy of `obj` (a whole resource: its root is treated as a resource root). */
export function pruneUnknownFields(obj: unknown, schema: OpenApiSchema): unknown {
  if (!isPlainObject(obj)) return obj;
  const copy = structuredClone(obj);
  pruneResource(copy, schema);
  return copy;
}

/** Prunes a copy of a value that is not a resource root (e.g. a schema default). */
export function pruneValueCopy(value: unknown, schema: OpenApiSchema): unknown {
  const copy = value === undefined ? undefined : structuredClone(value);
  pruneValue(copy, schema);
  return copy;
}

function pruneResource(obj: Record<string, unknown>, s: OpenApiSchema | undefined): void {
  if (isPlainObject(obj.metadata)) pruneMetadata(obj.metadata);
  pruneObject(obj, s, RESOURCE_FIELDS);
}

function pruneMetadata(meta: Record<string, unknown>): void {
  for (const k of Object.keys(meta)) if (!OBJECT_META_FIELDS.has(k)) delete meta[k];
}

function pruneValue(value: unknown, s: OpenApiSchema | undefined): void {
  if (Array.isArray(value)) {
    const items = isPlainObject(s) ? s.items : undefined;
    const preserve = isPlainObject(s) && s['x-kubernetes-preserve-unknown-fields'] === true;
    for (const item of value) pruneValue(item, isPlainObject(items) ? items : preserve ? s : undefined);
    return;
  }
  if (!isPlainObject(value)) return;
  if (isPlainObject(s) && s['x-kubernetes-embedded-resource'] === true) pruneResource(value, s);
  else pruneObject(value, s, undefined);
}

/** `keep` lists fields that are always kept untouched (the resource fields at a resource root). */
function pruneObject(obj: Record<string, unknown>, s: OpenApiSchema | undefined, keep: Set<string> | undefined): void {
  const preserve = isPlainObject(s) && s['x-kubernetes-preserve-unknown-fields'] === true;
  const props = isPlainObject(s) ? propertiesOf(s) : {};
  const extra = isPlainObject(s) ? additionalSchemaOf(s) : undefined;
  for (const [name, fieldValue] of Object.entries(obj)) {
    if (keep?.has(name)) continue;
    const ps = props[name] ?? extra;
    if (ps) pruneValue(fieldValue, ps);
    else if (preserve) pruneValue(fieldValue, { 'x-kubernetes-preserve-unknown-fields': true });
    else delete obj[name];
  }
}
