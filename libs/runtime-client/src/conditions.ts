// Minimal metav1.Condition upsert used for the ExtensionConfig Discovered condition.
// (Move to @capi/api's condition helpers once that lib exports them.)
import type { Condition } from './extension-config';

/** Returns a new list with `next` set; lastTransitionTime only changes when the status changes. */
export function setCondition(conditions: Condition[] | undefined, next: Omit<Condition, 'lastTransitionTime'>, now: Date): Condition[] {
  const list = conditions ?? [];
  const existing = list.find((c) => c.type === next.type);
  const lastTransitionTime = existing && existing.status === next.status ? existing.lastTransitionTime : now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const updated: Condition = { ...next, lastTransitionTime };
  if (updated.message === undefined || updated.message === '') delete updated.message;
  return existing ? list.map((c) => (c.type === next.type ? updated : c)) : [...list, updated];
}
