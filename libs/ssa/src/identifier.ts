// Request identifier for the SSA cache (upstream internal/util/ssa/cache.go ComputeRequestIdentifier).
import { canonicalJson, fnv32a, parseApiVersion, type KubeObject } from '@capi/apimachinery';

/** GVK printed like Go's schema.GroupVersionKind.String(): "cluster.x-k8s.io/v1beta2, Kind=Machine" ("/v1, Kind=Pod" for core). */
export function gvkString(obj: Pick<KubeObject, 'apiVersion' | 'kind'>): string {
  const { group, version } = parseApiVersion(obj.apiVersion);
  return `${group}/${version}, Kind=${obj.kind}`;
}

/** "namespace/name", or "name" for cluster-scoped objects (klog.KObj). */
export function objectKeyString(obj: Pick<KubeObject, 'metadata'>): string {
  const { namespace, name } = obj.metadata;
  return namespace ? `${namespace}/${name ?? ''}` : (name ?? '');
}

/** Deterministic hash of an object's content (key order does not matter). */
export function hashObject(obj: unknown): number {
  return fnv32a(canonicalJson(obj));
}

/**
 * "<GVK>.<namespace/name>.<resourceVersion>.<hash>": unique for "this intent against this object at this
 * resourceVersion", so any write by anybody (new resourceVersion) or any intent change is a cache miss.
 */
export function computeRequestIdentifier(resourceVersion: string, prepared: KubeObject): string {
  return requestIdentifier(resourceVersion, prepared, hashObject(prepared));
}

/** computeRequestIdentifier with `hashObject(prepared)` already computed (one hash for several keys). */
export function requestIdentifier(resourceVersion: string, prepared: KubeObject, hash: number): string {
  // join, not a template literal: the cache keeps tens of thousands of these for 30 min, and V8 keeps a template's
  // result as a tree of its parts (about 400 bytes an entry in the cache's Map) where join makes one flat string (about 200).
  return [gvkString(prepared), objectKeyString(prepared), resourceVersion, hash].join('.');
}
