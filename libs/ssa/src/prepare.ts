// PrepareModified (upstream internal/util/ssa/patch.go): the apply intent keeps only the fields controllers have
// opinions on.
import type { KubeObject } from '@capi/apimachinery';
import { pickPaths, type FieldPath } from '@capi/apimachinery';

/** Paths kept in an SSA intent; status, resourceVersion, managedFields, creationTimestamp... are dropped. */
export const SSA_ALLOWED_PATHS: readonly FieldPath[] = [
  ['apiVersion'],
  ['kind'],
  ['metadata', 'name'],
  ['metadata', 'namespace'],
  // uid is optional but pins the intent to one specific object.
  ['metadata', 'uid'],
  ['metadata', 'labels'],
  ['metadata', 'annotations'],
  ['metadata', 'finalizers'],
  ['metadata', 'ownerReferences'],
  ['spec'],
];

export class InvalidApplyIntentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidApplyIntentError';
  }
}

/** A deep copy of `obj` restricted to SSA_ALLOWED_PATHS. Throws InvalidApplyIntentError without apiVersion/kind/name. */
export function prepareModified(obj: KubeObject): KubeObject {
  if (!obj || typeof obj !== 'object') throw new InvalidApplyIntentError('apply intent must be an object');
  if (!obj.apiVersion || !obj.kind) throw new InvalidApplyIntentError('apply intent must have apiVersion and kind');
  if (!obj.metadata?.name) throw new InvalidApplyIntentError(`apply intent for ${obj.kind} must have metadata.name`);
  const out = pickPaths(obj as unknown as Record<string, unknown>, SSA_ALLOWED_PATHS) as unknown as KubeObject;
  out.metadata ??= {};
  return out;
}
