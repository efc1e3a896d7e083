// RFC 7386 merge patch between two JSON values (arrays replaced whole), for status writes of changed fields only.

import { jsonEqual } from '@capi/api';

type Json = unknown;

const isObject = (v: Json): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The merge patch turning `from` into `to`; undefined when they are equal. */
export function createMergePatch(from: Json, to: Json): Json | undefined {
  if (jsonEqual(from, to)) return undefined;
  if (!isObject(from) || !isObject(to)) return to === undefined ? null : to;
  const patch: Record<string, Json> = {};
  for (const k of Object.keys(from)) if (from[k] !== undefined && to[k] === undefined) patch[k] = null;
  for (const [k, v] of Object.entries(to)) {
    if (v === undefined) continue;
    const p = createMergePatch(from[k], v);
    if (p !== undefined) patch[k] = p;
  }
  return patch;
}
