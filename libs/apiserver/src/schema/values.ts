// Small value helpers shared by validation, defaulting and pruning.
import { isPlainObject } from './types';

/** The JSON type name of a value as kube-openapi reports it ("integer" for whole numbers). */
export function jsonTypeOf(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  if (typeof v === 'object') return 'object';
  return typeof v; // string, boolean
}

/** A copy with every object's keys in sorted order, as Go's encoding/json writes a map (arrays keep their order). */
export function sortKeysDeep<T>(v: T): T {
  if (Array.isArray(v)) return v.map(sortKeysDeep) as T;
  if (!isPlainObject(v)) return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) out[k] = sortKeysDeep(v[k]);
  return out as T;
}

/** Schemas from `properties`; tolerant of a missing or malformed map. */
export function propertiesOf(s: Record<string, any>): Record<string, Record<string, any>> {
  return isPlainObject(s.properties) ? (s.properties as Record<string, Record<string, any>>) : {};
}

/** The additionalProperties schema, `true` meaning "anything", or undefined when absent/false. */
export function additionalSchemaOf(s: Record<string, any>): Record<string, any> | undefined {
  const ap = s.additionalProperties;
  if (ap === true) return { 'x-kubernetes-preserve-unknown-fields': true };
  return isPlainObject(ap) ? (ap as Record<string, any>) : undefined;
}
