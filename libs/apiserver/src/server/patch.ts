import * as jsonpatch from 'fast-json-patch';
import { badRequest, StatusError } from './status';

const isMap = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** RFC 6902 JSON patch; failed `test` ops and bad paths are client errors. */
export function jsonPatch(target: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops)) throw badRequest('json patch must be an array of operations');
  const err = jsonpatch.validate(ops as jsonpatch.Operation[], target);
  if (err)
    throw new StatusError(
      422,
      `the server rejected our request due to an error in our request: ${err.message.split('\n')[0]}`,
      'Invalid',
    );
  try {
    return jsonpatch.applyPatch(structuredClone(target), ops as jsonpatch.Operation[], false, false).newDocument;
  } catch (e) {
    throw new StatusError(
      422,
      `the server rejected our request due to an error in our request: ${(e as Error).message.split('\n')[0]}`,
      'Invalid',
    );
  }
}

/** Merge keys for lists in the built-in kinds we serve (strategic merge patch). */
const STRATEGIC_KEYS: Record<string, string> = {
  conditions: 'type',
  addresses: 'type',
  taints: 'key',
  ownerReferences: 'uid',
  images: 'names',
  volumes: 'name',
  containers: 'name',
  env: 'name',
  ports: 'containerPort',
};

/**
 * Strategic merge patch for built-in kinds: a merge patch where known keyed lists merge by key,
 * `$patch: delete` entries remove list items and `$retainKeys`/`$setElementOrder` directives are ignored.
 */
export function strategicMergePatch(target: unknown, patch: unknown, field = ''): unknown {
  if (Array.isArray(patch) && Array.isArray(target) && STRATEGIC_KEYS[field]) {
    const key = STRATEGIC_KEYS[field];
    const out = [...target];
    for (const item of patch) {
      const idx = out.findIndex((t) => isMap(t) && isMap(item) && t[key] === item[key]);
      if (isMap(item) && item.$patch === 'delete') {
        if (idx >= 0) out.splice(idx, 1);
      } else if (idx >= 0) out[idx] = strategicMergePatch(out[idx], item);
      else out.push(item);
    }
    return out;
  }
  if (field === 'finalizers' && Array.isArray(patch) && Array.isArray(target)) {
    return [...new Set([...target, ...patch])];
  }
  if (!isMap(patch)) return patch;
  const out: Record<string, any> = isMap(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (k.startsWith('$')) continue;
    if (v === null) delete out[k];
    else out[k] = strategicMergePatch(out[k], v, k);
  }
  return out;
}
