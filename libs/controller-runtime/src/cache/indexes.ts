// Field indexes controllers share (controller-runtime IndexField / upstream cluster-api's index package): each helper
// registers a well-known field with one extractor per field name, so several controllers asking for the same index
// register it once (InformerCache.indexField treats the same extractor as a no-op).
import type { KubeObject } from '@capi/apimachinery';
import { FieldExtractor, InformerCache, labelIndexField } from './cache';

/** Index field of the controlling ownerReference: values `Kind/name` (see controllerOwnerKey), NO_CONTROLLER_OWNER without one. */
export const OWNER_CONTROLLER_FIELD = '.metadata.controller';
/** Index value of objects without a controlling ownerReference (orphans a controller may adopt). */
export const NO_CONTROLLER_OWNER = '';

/** Index value of objects controlled by `kind`/`name` (any API group: callers check the group and uid of the few hits). */
export const controllerOwnerKey = (kind: string, name: string): string => `${kind}/${name}`;

const ownerController: FieldExtractor = (obj) => {
  const ref = obj.metadata.ownerReferences?.find((r) => r.controller === true);
  return [ref ? controllerOwnerKey(ref.kind, ref.name) : NO_CONTROLLER_OWNER];
};

/** Indexes a kind by its controlling owner: `matchingFields: { [OWNER_CONTROLLER_FIELD]: controllerOwnerKey(kind, name) }`. */
export function indexByControllerOwner(cache: InformerCache, apiVersion: string, kind: string): void {
  cache.indexField(apiVersion, kind, OWNER_CONTROLLER_FIELD, ownerController);
}

const pathExtractors = new Map<string, FieldExtractor>();

/** Reads a dotted path of string/number leaves, e.g. `spec.clusterName`, `status.nodeRef.name`. */
function pathExtractor(path: string): FieldExtractor {
  let extract = pathExtractors.get(path);
  if (!extract) {
    const steps = path.split('.');
    extract = (obj) => {
      let v: unknown = obj;
      for (const s of steps) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[s] : undefined;
      return typeof v === 'string' || typeof v === 'number' ? [String(v)] : [];
    };
    pathExtractors.set(path, extract);
  }
  return extract;
}

/** Indexes a kind by the value at a dotted path: `matchingFields: { [path]: value }` (objects without it are not listed). */
export function indexByFieldPath(cache: InformerCache, apiVersion: string, kind: string, path: string): void {
  cache.indexField(apiVersion, kind, path, pathExtractor(path));
}

const labelExtractors = new Map<string, FieldExtractor>();

/**
 * Indexes a kind by one label: a list whose label selector requires `key=value` then starts from that index bucket
 * instead of the whole namespace (the rest of the selector is still checked).
 */
export function indexByLabel(cache: InformerCache, apiVersion: string, kind: string, key: string): void {
  let extract = labelExtractors.get(key);
  if (!extract) {
    extract = (obj: KubeObject) => {
      const v = obj.metadata.labels?.[key];
      return v === undefined ? [] : [v];
    };
    labelExtractors.set(key, extract);
  }
  cache.indexField(apiVersion, kind, labelIndexField(key), extract);
}
