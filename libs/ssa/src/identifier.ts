// Request identifier for the SSA cache (spec §10.2; upstream internal/util/ssa/cache.go ComputeRequestIdentifier).
import type { KubeObject } from '@capi/controller-runtime';

/** Splits "group/version" (or "v1" for the core group). */
export function parseApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.indexOf('/');
  return i < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

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

/** JSON with object keys sorted at every level, so equal content always hashes equally. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const entries = Object.keys(value as Record<string, unknown>)
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
  return `{${entries.join(',')}}`;
}

/** 32-bit FNV-1a over the UTF-8 bytes of `text` (upstream hashes with FNV-32a too), as an unsigned integer. */
export function fnv32a(text: string): number {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
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
  return `${gvkString(prepared)}.${objectKeyString(prepared)}.${resourceVersion}.${hashObject(prepared)}`;
}
