// Defaulting as apiextensions-apiserver does it (schema/defaulting): top-down, so a defaulted object gets
// its own nested defaults too; inside array items and additionalProperties values. A null in a field that
// is not nullable is replaced by the default if there is one and dropped otherwise; nullable nulls stay.
import { OpenApiSchema, isPlainObject } from './types';
import { additionalSchemaOf, propertiesOf } from './values';

/** Returns a copy of `obj` with schema `default`s filled in. The input is not modified. */
export function applyDefaults(obj: unknown, schema: OpenApiSchema): unknown {
  const copy = obj === undefined ? undefined : structuredClone(obj);
  return defaultNode(copy, schema);
}

function defaultNode(value: unknown, s: OpenApiSchema | undefined): unknown {
  if (!isPlainObject(s)) return value;
  if (Array.isArray(value)) {
    if (isPlainObject(s.items)) {
      for (let i = 0; i < value.length; i++) {
        // a null item of a non-nullable items schema takes the items default (kube keeps null items otherwise)
        if (value[i] === null && s.items.nullable !== true && s.items.default !== undefined) value[i] = structuredClone(s.items.default);
        value[i] = defaultNode(value[i], s.items);
      }
    }
    return value;
  }
  if (!isPlainObject(value)) return value;
  const props = propertiesOf(s);
  for (const [name, ps] of Object.entries(props)) {
    if (!isPlainObject(ps)) continue;
    const current = value[name];
    if (current === undefined || (current === null && ps.nullable !== true)) {
      if (ps.default !== undefined) value[name] = structuredClone(ps.default);
      else if (current === null) delete value[name];
    }
  }
  const extra = additionalSchemaOf(s);
  for (const [name, fieldValue] of Object.entries(value)) {
    const ps = props[name] ?? extra;
    if (!ps) continue;
    if (fieldValue === null && ps.nullable !== true && !props[name]) {
      // additionalProperties values: same null rule as declared properties
      if (ps.default !== undefined) value[name] = structuredClone(ps.default);
      else delete value[name];
      continue;
    }
    value[name] = defaultNode(fieldValue, ps);
  }
  return value;
}
