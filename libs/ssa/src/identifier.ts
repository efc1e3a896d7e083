// Request identifier for the SSA cache (spec §10.2; upstream internal/util/ssa/cache.go ComputeRequestIdentifier).
import { canonicalJson, parseApiVersion, type KubeObject } from '@capi/apimachinery';

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

/** 32-bit FNV-1a over the UTF-8 bytes of `text` (upstream hashes with FNV-32a too), as an unsigned integer. */
export function fnv32a(text: string): number {
  let h = 0x811c9dc5;
  if (Buffer.byteLength(text, 'utf8') === text.length) {
    // ASCII (almost all Kubernetes content): char codes are the UTF-8 bytes, no encoding needed.
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  } else {
    for (const byte of Buffer.from(text, 'utf8')) h = Math.imul(h ^ byte, 0x01000193);
  }
  return h >>> 0;
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
  return `${gvkString(prepared)}.${objectKeyString(prepared)}.${resourceVersion}.${hash}`;
}
