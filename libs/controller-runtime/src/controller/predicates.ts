import { jsonEqual, KubeObject } from '@capi/apimachinery';
import { Predicate } from './types';

/** Lets every event through except updates that did not change metadata.generation (status-only writes). */
export const generationChangedPredicate: Predicate = {
  update: (o, n) => o.metadata.generation !== n.metadata.generation,
};

/**
 * True when an update changed nothing but status (and the bookkeeping every write changes: resourceVersion,
 * managedFields): same generation, labels, annotations, finalizers, owners, deletion and spec. Pure, unit-tested.
 */
export function statusOnlyUpdate(o: KubeObject, n: KubeObject): boolean {
  if (o.metadata.generation !== n.metadata.generation || o.metadata.deletionTimestamp !== n.metadata.deletionTimestamp)
    return false;
  const rest = (obj: KubeObject) => {
    const { status: _status, metadata, ...others } = obj as KubeObject & { status?: unknown };
    const { resourceVersion: _rv, managedFields: _mf, ...meta } = metadata;
    return { ...others, metadata: meta };
  };
  return jsonEqual(rest(o), rest(n));
}

/** Lets through updates that changed any annotation. */
export const annotationChangedPredicate: Predicate = {
  update: (o, n) => !sameRecord(o.metadata.annotations, n.metadata.annotations),
};

/** Lets through updates that changed any label. */
export const labelChangedPredicate: Predicate = {
  update: (o, n) => !sameRecord(o.metadata.labels, n.metadata.labels),
};

/** Lets through updates that changed the resourceVersion (drops no-op relist updates). */
export const resourceVersionChangedPredicate: Predicate = {
  update: (o, n) => o.metadata.resourceVersion !== n.metadata.resourceVersion,
};

/** Lets through events touching objects that carry this annotation (on either side of an update). */
export function hasAnnotationPredicate(key: string): Predicate {
  const has = (o: KubeObject) => o.metadata.annotations?.[key] !== undefined;
  return { create: has, delete: has, update: (o, n) => has(o) || has(n) };
}

export function anyOf(...ps: Predicate[]): Predicate {
  return {
    create: (o) => ps.some((p) => allowsCreate(p, o)),
    update: (o, n) => ps.some((p) => allowsUpdate(p, o, n)),
    delete: (o) => ps.some((p) => allowsDelete(p, o)),
  };
}

export function allOf(...ps: Predicate[]): Predicate {
  return {
    create: (o) => ps.every((p) => allowsCreate(p, o)),
    update: (o, n) => ps.every((p) => allowsUpdate(p, o, n)),
    delete: (o) => ps.every((p) => allowsDelete(p, o)),
  };
}

export const allowsCreate = (p: Predicate, o: KubeObject): boolean => p.create?.(o) ?? true;
export const allowsUpdate = (p: Predicate, o: KubeObject, n: KubeObject): boolean => p.update?.(o, n) ?? true;
export const allowsDelete = (p: Predicate, o: KubeObject): boolean => p.delete?.(o) ?? true;

function sameRecord(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  const ka = Object.keys(a ?? {});
  const kb = Object.keys(b ?? {});
  return ka.length === kb.length && ka.every((k) => (a ?? {})[k] === (b ?? {})[k]);
}
