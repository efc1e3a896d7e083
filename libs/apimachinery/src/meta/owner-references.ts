// Owner reference helpers of upstream's util package (util/util.go EnsureOwnerRef, HasOwner).
import { groupOf } from '../schema/group-version';
import type { OwnerReference } from './types';

/** The same object: group, kind and name (the version may differ, as upstream's comparison). */
export const sameOwnerRef = (a: OwnerReference, b: OwnerReference): boolean =>
  groupOf(a.apiVersion) === groupOf(b.apiVersion) && a.kind === b.kind && a.name === b.name;

/** Replaces the reference to the same object (group, kind, name) with `owner`, or appends it. */
export function ensureOwnerRef(refs: readonly OwnerReference[], owner: OwnerReference): OwnerReference[] {
  const i = refs.findIndex((r) => sameOwnerRef(r, owner));
  return i < 0 ? [...refs, owner] : refs.map((r, j) => (j === i ? owner : r));
}
