// RFC 7386 JSON merge patch, as kube-apiserver applies application/merge-patch+json (github.com/evanphx/json-patch
// MergePatch, used by k8s.io/apiserver/pkg/endpoints/handlers/patch.go) and as clients compute one
// (CreateMergePatch).
import { jsonEqual } from './equal';

type JsonMap = Record<string, unknown>;
const isMap = (v: unknown): v is JsonMap => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Applies `patch` to `target`: objects merge recursively, null deletes a member, anything else (arrays included)
 * replaces. Neither argument is modified; the result shares the untouched parts of `target` and holds copies of
 * `patch`'s values.
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isMap(patch)) return typeof patch === 'object' && patch !== null ? structuredClone(patch) : patch;
  const out: JsonMap = isMap(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/**
 * The merge patch turning `from` into `to` (members gone from `to` become null, arrays are replaced whole), or
 * undefined when they are equal (jsonEqual). Undefined members count as absent.
 */
export function createMergePatch(from: unknown, to: unknown): unknown {
  if (jsonEqual(from, to)) return undefined;
  if (!isMap(from) || !isMap(to)) return to === undefined ? null : to;
  const patch: JsonMap = {};
  for (const k of Object.keys(from)) if (from[k] !== undefined && to[k] === undefined) patch[k] = null;
  for (const [k, v] of Object.entries(to)) {
    if (v === undefined) continue;
    const p = createMergePatch(from[k], v);
    if (p !== undefined) patch[k] = p;
  }
  return patch;
}
