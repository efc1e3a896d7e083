// Applying an extension's patch to a request object, keeping only changes under allowed paths (upstream
// internal/util/patch/patch.go ApplyPatchToObject). Out-of-path changes are discarded, not rejected.
import { mergePatch, getPath, hasPath, setPath, type FieldPath } from '@capi/apimachinery';
import { decodePatch, isPatchDefined, PatchDecodeError, type Patch } from '@capi/api';
import { applyPatch as applyJsonPatch, JsonPatchError, type Operation } from 'fast-json-patch';

export class PatchApplyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PatchApplyError';
  }
}

type JsonMap = Record<string, unknown>;
const isMap = (v: unknown): v is JsonMap => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Allowed sub-paths per hook: CanUpdateMachine may only change `spec`, CanUpdateMachineSet `spec.template.spec`. */
export const MACHINE_PATCH_PATHS: readonly FieldPath[] = [['spec']];
export const MACHINE_SET_PATCH_PATHS: readonly FieldPath[] = [['spec', 'template', 'spec']];

/**
 * Returns a patched deep copy of `obj`. Undefined patches and empty JSONMergePatch bytes are a no-op; empty JSONPatch
 * bytes, an unknown patchType, undecodable bytes or a failing operation throw PatchApplyError. Of the patched result
 * only the values under `allowedPaths` are taken over (a removed allowed path is ignored); every other change is dropped.
 */
export function applyPatchToObject<T extends object>(
  obj: T,
  patch: Patch | undefined,
  allowedPaths: readonly FieldPath[],
): T {
  const original = structuredClone(obj) as unknown as JsonMap;
  if (!isPatchDefined(patch)) return original as T;
  // Upstream: an empty merge patch is "nothing to do", but empty JSONPatch bytes do not decode (an error).
  if (patch.patchType === 'JSONMergePatch' && !patch.patch) return original as T;
  if (patch.patchType === 'JSONPatch' && !patch.patch) {
    throw new PatchApplyError('failed to apply patch: error decoding json patch (RFC6902): patch is empty');
  }
  let decoded: ReturnType<typeof decodePatch>;
  try {
    decoded = decodePatch(patch);
  } catch (e) {
    throw new PatchApplyError(e instanceof PatchDecodeError ? e.message : String(e));
  }

  let patched: unknown;
  if (decoded.patchType === 'JSONPatch') {
    try {
      patched = applyJsonPatch(
        structuredClone(original),
        decoded.document as Operation[],
        true,
        true,
        true,
      ).newDocument;
    } catch (e) {
      const detail = e instanceof JsonPatchError ? `${e.name}: ${e.message.split('\n')[0]}` : (e as Error).message;
      throw new PatchApplyError(`failed to apply JSONPatch: ${detail}`);
    }
  } else {
    patched = mergePatch(original, decoded.document);
  }
  if (!isMap(patched)) throw new PatchApplyError('patch result is not a JSON object');

  const result = original;
  for (const path of allowedPaths) {
    // A patch that removed the allowed path changes nothing there (upstream CopySpec: source path missing -> no-op).
    if (hasPath(patched, path)) setPath(result, path, structuredClone(getPath(patched, path)));
  }
  return result as T;
}
