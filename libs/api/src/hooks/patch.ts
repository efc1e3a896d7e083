// Helpers for the hooks' Patch type: bytes travel base64-encoded (Go []byte JSON encoding).
import { PATCH_TYPES, type PatchType } from './constants';
import type { Patch } from './types';

/** A Patch is defined iff it has a patchType or non-empty patch bytes (upstream IsDefined). */
export function isPatchDefined(p: Patch | undefined): p is Patch {
  return !!p && (!!p.patchType || (p.patch !== undefined && p.patch !== ''));
}

/** Encodes a JSON patch document (RFC 6902 ops array or RFC 7386 merge object) into a wire Patch. */
export function encodePatch(patchType: PatchType, document: unknown): Patch {
  return { patchType, patch: Buffer.from(JSON.stringify(document), 'utf8').toString('base64') };
}

export class PatchDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PatchDecodeError';
  }
}

/** Decodes a wire Patch into its type and parsed JSON document; throws PatchDecodeError on bad input. */
export function decodePatch(p: Patch): { patchType: PatchType; document: unknown } {
  if (!p.patchType || !PATCH_TYPES.includes(p.patchType)) {
    throw new PatchDecodeError(
      `unknown patchType ${JSON.stringify(p.patchType ?? '')}: must be one of ${PATCH_TYPES.join(', ')}`,
    );
  }
  const text = Buffer.from(p.patch ?? '', 'base64').toString('utf8');
  if (text.trim() === '') {
    // An empty JSONPatch is a no-op list; an empty merge patch is a no-op object.
    return { patchType: p.patchType, document: p.patchType === 'JSONPatch' ? [] : {} };
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (e) {
    throw new PatchDecodeError(`patch is not valid JSON: ${(e as Error).message}`);
  }
  if (p.patchType === 'JSONPatch' && !Array.isArray(document)) {
    throw new PatchDecodeError('JSONPatch must be an array of operations');
  }
  if (
    p.patchType === 'JSONMergePatch' &&
    (document === null || typeof document !== 'object' || Array.isArray(document))
  ) {
    throw new PatchDecodeError('JSONMergePatch must be a JSON object');
  }
  return { patchType: p.patchType, document };
}
