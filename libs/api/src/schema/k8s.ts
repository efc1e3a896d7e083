// Schema building blocks with the Kubernetes OpenAPI extensions that upstream expresses as kubebuilder markers.
// Every schema here is structural: each node has a `type` or an allowed x-kubernetes-* extension.
import {
  CloneType,
  Type,
  type TSchema,
  type TObject,
  type TProperties,
  type ObjectOptions,
  type SchemaOptions,
} from '@sinclair/typebox';

/** Object schema that keeps unknown fields out of CRDs' `additionalProperties:false` (apiserver prunes instead). */
export function Obj<T extends TProperties>(properties: T, options: ObjectOptions = {}): TObject<T> {
  return Type.Object(properties, options);
}

/** Optional string. */
export const OptString = (options: SchemaOptions = {}) => Type.Optional(Type.String(options));
/** Optional int32. */
export const OptInt32 = (options: SchemaOptions = {}) => Type.Optional(Type.Integer({ format: 'int32', ...options }));
export const OptBool = (options: SchemaOptions = {}) => Type.Optional(Type.Boolean(options));

/** `+listType=atomic` list. */
export const AtomicList = <T extends TSchema>(items: T, options: SchemaOptions = {}) =>
  Type.Array(items, { 'x-kubernetes-list-type': 'atomic', ...options });

/** `+listType=set` list. */
export const SetList = <T extends TSchema>(items: T, options: SchemaOptions = {}) =>
  Type.Array(items, { 'x-kubernetes-list-type': 'set', ...options });

/** `+listType=map` list keyed by `keys`. */
export const MapList = <T extends TSchema>(items: T, keys: string[], options: SchemaOptions = {}) =>
  Type.Array(items, { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': keys, ...options });

/** map[string]string. */
export const StringMap = (options: SchemaOptions = {}) => Type.Record(Type.String(), Type.String(), options);

/** intstr.IntOrString: number or string on the wire. */
export const IntOrString = (options: SchemaOptions = {}) =>
  Type.Union([Type.Integer(), Type.String()], { 'x-kubernetes-int-or-string': true, ...options });

/** Rarely used fields kept as opaque JSON (preserve-unknown-fields in the CRD). */
export const Opaque = (options: SchemaOptions = {}) =>
  Type.Record(Type.String(), Type.Unknown(), { 'x-kubernetes-preserve-unknown-fields': true, ...options });

/** metav1.Time (RFC 3339). */
export const Time = (options: SchemaOptions = {}) => Type.String({ format: 'date-time', ...options });

/** String enum: a union of literals (checkable by TypeBox); the CRD builder turns it into `type: string, enum`. */
export const Enum = <const V extends string[]>(values: [...V], options: SchemaOptions = {}) =>
  Type.Unsafe<V[number]>(
    Type.Union(
      values.map((v) => Type.Literal(v)),
      { 'x-enum': true, ...options },
    ),
  );

/** Names (DNS subdomain style) as upstream validates them. */
export const Name = (options: SchemaOptions = {}) => Type.String({ minLength: 1, maxLength: 253, ...options });

/**
 * `schema` with a description for the field that uses it: a field's doc comment wins over its type's, as
 * controller-gen writes it. The shared schema itself is left as defined.
 */
// CloneType's options yield to the schema's own keys, hence the assignment.
export const Described = <T extends TSchema>(schema: T, description: string): T =>
  Object.assign(CloneType(schema), { description });
