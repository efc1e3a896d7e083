import type { Condition } from '@capi/api';
import { jsonEqual } from '@capi/apimachinery';

// Several controllers own conditions on a Machine (the owner writes UpToDate, MHC writes HealthCheckSucceeded and
// OwnerRemediated). A status merge patch replaces the whole list, so the Machine controller rebases the conditions it
// changed onto the latest list instead of writing back a possibly stale copy of everyone else's.

/** Condition types whose content differs between `before` and `after` (added, changed or removed). */
export function changedConditionTypes(before: Condition[] | undefined, after: Condition[] | undefined): Set<string> {
  const index = (list: Condition[] | undefined) => new Map((list ?? []).map((c) => [c.type, c]));
  const b = index(before);
  const a = index(after);
  const changed = new Set<string>();
  // Key order ignored: `before` may come from kube-apiserver (keys sorted), `after` from code.
  for (const [type, c] of a) if (!b.has(type) || !jsonEqual(b.get(type), c)) changed.add(type);
  for (const type of b.keys()) if (!a.has(type)) changed.add(type);
  return changed;
}

/** `latest` with each changed type replaced by its `after` version (appended when new, dropped when removed). */
export function rebaseConditions(
  latest: Condition[],
  after: Condition[] | undefined,
  changed: Set<string>,
): Condition[] {
  const mine = new Map((after ?? []).map((c) => [c.type, c]));
  const out: Condition[] = [];
  for (const c of latest) {
    if (!changed.has(c.type)) out.push(c);
    else if (mine.has(c.type)) out.push(mine.get(c.type)!);
  }
  for (const type of changed) if (mine.has(type) && !latest.some((c) => c.type === type)) out.push(mine.get(type)!);
  return out;
}
