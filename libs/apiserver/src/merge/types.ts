// How a schema node is treated by the merge engine (structured-merge-diff's element relationships).
// Parts without a schema (or under x-kubernetes-preserve-unknown-fields) are "deduced" from the value:
// objects are granular maps, lists are atomic.

/** Structural OpenAPI v3 schema (same shape as the schema helper's OpenApiSchema). */
export type OpenApiSchema = Record<string, any>;

/** Internal marker keys (not valid OpenAPI, never leave this module). */
const IGNORED_FIELDS = 'x-merge-ignored-fields';
const IGNORE_UNDECLARED = 'x-merge-ignore-undeclared';

export type TypeKind =
  | { kind: 'scalar' }
  | { kind: 'atomic' } // atomic list or map: one leaf
  | { kind: 'map'; schema: OpenApiSchema | undefined }
  | { kind: 'set' }
  | { kind: 'listMap'; keys: string[]; items: OpenApiSchema | undefined };

export type FieldLookup = { ignored: true } | { ignored: false; declared: boolean; schema: OpenApiSchema | undefined };

const stringMap: OpenApiSchema = { type: 'object', additionalProperties: { type: 'string' } };

/** metadata: only labels, annotations, finalizers (set) and ownerReferences (map by uid, atomic items) are owned. */
export const metadataSchema: OpenApiSchema = {
  type: 'object',
  [IGNORE_UNDECLARED]: true,
  properties: {
    labels: stringMap,
    annotations: stringMap,
    finalizers: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
    ownerReferences: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['uid'],
      items: { type: 'object', 'x-kubernetes-map-type': 'atomic', 'x-kubernetes-preserve-unknown-fields': true },
    },
  },
};

/** The schema of a whole object: apiVersion/kind never owned, metadata per `metadataSchema`. */
export function rootSchema(schema: OpenApiSchema | undefined): OpenApiSchema {
  const base: OpenApiSchema = schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  return {
    ...base,
    type: 'object',
    [IGNORED_FIELDS]: ['apiVersion', 'kind'],
    properties: { ...(base.properties ?? {}), metadata: metadataSchema },
  };
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function isMapSchema(s: OpenApiSchema): boolean {
  return s.type === 'object' || s.properties !== undefined || s.additionalProperties !== undefined;
}

/** Classifies a value under its schema; a value that does not fit its schema is treated as one leaf. */
export function typeOf(schema: OpenApiSchema | undefined, value: unknown): TypeKind {
  const deduced =
    schema === undefined ||
    (schema['x-kubernetes-preserve-unknown-fields'] === true && schema.type === undefined && !schema.properties);
  if (Array.isArray(value)) {
    if (deduced || schema!.type !== 'array') return { kind: 'atomic' };
    const listType = schema!['x-kubernetes-list-type'] ?? 'atomic';
    if (listType === 'set')
      return value.every((v) => !isObject(v) && !Array.isArray(v)) ? { kind: 'set' } : { kind: 'atomic' };
    if (listType === 'map') {
      const keys: string[] = schema!['x-kubernetes-list-map-keys'] ?? [];
      if (keys.length > 0 && value.every(isObject)) return { kind: 'listMap', keys, items: schema!.items };
    }
    return { kind: 'atomic' };
  }
  if (isObject(value)) {
    if (deduced) return { kind: 'map', schema: undefined };
    if (!isMapSchema(schema!)) return { kind: 'atomic' };
    if (schema!['x-kubernetes-map-type'] === 'atomic') return { kind: 'atomic' };
    return { kind: 'map', schema };
  }
  return { kind: 'scalar' };
}

/** How a key of a granular map is treated. `schema` undefined means deduced. */
export function lookupField(mapSchema: OpenApiSchema | undefined, key: string): FieldLookup {
  if (mapSchema === undefined) return { ignored: false, declared: false, schema: undefined };
  if ((mapSchema[IGNORED_FIELDS] as string[] | undefined)?.includes(key)) return { ignored: true };
  const prop = mapSchema.properties?.[key];
  if (prop !== undefined) return { ignored: false, declared: true, schema: prop };
  if (mapSchema[IGNORE_UNDECLARED]) return { ignored: true };
  const ap = mapSchema.additionalProperties;
  if (isObject(ap)) return { ignored: false, declared: false, schema: ap };
  // additionalProperties: true, preserve-unknown-fields, or a field the schema does not know
  // (pruning drops it later): deduced.
  return { ignored: false, declared: false, schema: undefined };
}

export { isObject };
