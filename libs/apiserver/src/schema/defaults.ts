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

/** applyDefaults on a value the caller owns (e.g. a fresh pruned copy): filled in where it is, no copy. */
export function applyDefaultsInPlace(obj: unknown, schema: OpenApiSchema): unknown {
  return defaultNode(obj, schema);
}

/** The declared properties that carry a default, per schema node, found once (schemas are not changed in place). */
const defaultedCache = new WeakMap<object, [string, Record<string, any>][]>();
function defaultedPropsOf(
  s: Record<string, any>,
  props: Record<string, Record<string, any>>,
): [string, Record<string, any>][] {
  let out = defaultedCache.get(s);
  if (!out)
    defaultedCache.set(
      s,
      (out = Object.entries(props).filter(([, ps]) => isPlainObject(ps) && ps.default !== undefined)),
    );
  return out;
}

function defaultNode(value: unknown, s: OpenApiSchema | undefined): unknown {
  if (!isPlainObject(s)) return value;
  if (Array.isArray(value)) {
    if (isPlainObject(s.items)) {
      for (let i = 0; i < value.length; i++) {
        // a null item of a non-nullable items schema takes the items default (kube keeps null items otherwise)
        if (value[i] === null && s.items.nullable !== true && s.items.default !== undefined)
          value[i] = structuredClone(s.items.default);
        value[i] = defaultNode(value[i], s.items);
      }
    }
    return value;
  }
  if (!isPlainObject(value)) return value;
  const props = propertiesOf(s);
  for (const [name, ps] of defaultedPropsOf(s, props)) {
    const current = value[name];
    if (current === undefined || (current === null && ps.nullable !== true)) value[name] = structuredClone(ps.default);
  }
  const extra = additionalSchemaOf(s);
  for (const [name, fieldValue] of Object.entries(value)) {
    const declared = props[name];
    const ps = declared ?? extra;
    if (!ps) continue;
    if (fieldValue === null && isPlainObject(ps) && ps.nullable !== true && ps.default === undefined) {
      // a null in a non-nullable field without a default is dropped (declared and additionalProperties alike)
      delete value[name];
      continue;
    }
    if (fieldValue === null && !declared && ps.nullable !== true) {
      // additionalProperties values: same null rule as declared properties
      value[name] = structuredClone(ps.default);
      continue;
    }
    value[name] = defaultNode(fieldValue, ps);
  }
  return value;
}
