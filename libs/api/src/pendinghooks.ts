// Hook tracking through the `runtime.cluster.x-k8s.io/pending-hooks` annotation (upstream internal/hooks/tracking.go).
// Pure: functions return the new annotations; the API write (merge patch) lives in controllers.
import { createMergePatch } from '@capi/apimachinery';
import { PENDING_HOOKS_ANNOTATION } from './constants';

/** Split a comma list: drops empty items, de-duplicates, sorts. */
export function parseCommaList(value: string | undefined): string[] {
  if (!value) return [];
  return [
    ...new Set(
      value
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s.length > 0),
    ),
  ].sort();
}

/** Sorted, de-duplicated comma list. */
export function formatCommaList(items: Iterable<string>): string {
  return [...new Set([...items].filter((s) => s.length > 0))].sort().join(',');
}

export const addToCommaList = (value: string | undefined, ...items: string[]): string =>
  formatCommaList([...parseCommaList(value), ...items]);

export const removeFromCommaList = (value: string | undefined, ...items: string[]): string =>
  formatCommaList(parseCommaList(value).filter((v) => !items.includes(v)));

export interface AnnotationsResult {
  annotations: Record<string, string>;
  /** False when the annotations are unchanged (no API call needed). */
  changed: boolean;
}

interface WithAnnotations {
  metadata: { annotations?: Record<string, string> };
}

export function pendingHooks(obj: WithAnnotations): string[] {
  return parseCommaList(obj.metadata.annotations?.[PENDING_HOOKS_ANNOTATION]);
}

export function isPending(hook: string, obj: WithAnnotations): boolean {
  return pendingHooks(obj).includes(hook);
}

/** Annotations with `hooks` added to pending-hooks. */
export function markAsPendingAnnotations(
  annotations: Record<string, string> | undefined,
  ...hooks: string[]
): AnnotationsResult {
  const current = annotations?.[PENDING_HOOKS_ANNOTATION];
  const next = addToCommaList(current, ...hooks);
  if (next === current || (next === '' && current === undefined))
    return { annotations: { ...annotations }, changed: false };
  const out = { ...annotations };
  if (next === '') delete out[PENDING_HOOKS_ANNOTATION];
  else out[PENDING_HOOKS_ANNOTATION] = next;
  return { annotations: out, changed: true };
}

/** Annotations with `hook` removed from pending-hooks; the annotation goes away when the list is empty. */
export function markAsDoneAnnotations(
  annotations: Record<string, string> | undefined,
  hook: string,
): AnnotationsResult {
  const current = annotations?.[PENDING_HOOKS_ANNOTATION];
  if (!parseCommaList(current).includes(hook)) return { annotations: { ...annotations }, changed: false };
  const next = removeFromCommaList(current, hook);
  const out = { ...annotations };
  if (next === '') delete out[PENDING_HOOKS_ANNOTATION];
  else out[PENDING_HOOKS_ANNOTATION] = next;
  return { annotations: out, changed: true };
}

/** JSON merge patch (RFC 7386) turning `original` annotations into `modified` ones; undefined when equal. */
export function annotationsMergePatch(
  original: Record<string, string> | undefined,
  modified: Record<string, string> | undefined,
): { metadata: { annotations: Record<string, string | null> } } | undefined {
  const patch = createMergePatch(original ?? {}, modified ?? {}) as Record<string, string | null> | undefined;
  return patch && { metadata: { annotations: patch } };
}
