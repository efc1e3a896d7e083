// @capi/apimachinery: the pieces of k8s.io/apimachinery and k8s.io/utils the other libs share. Test helpers are in
// '@capi/apimachinery/testing'.
export type {
  KubeObject,
  ObjectMeta,
  OwnerReference,
  ManagedFieldsEntry,
  ObjectList,
  ListMeta,
  Status,
} from './meta/types';
export { shareManagedFieldsTrees } from './meta/managed-fields';
export * from './labels';
export { jsonEqual, canonicalJson } from './json/equal';
export { cloneJson, deepFreeze } from './json/clone';
export { mergePatch, createMergePatch } from './json/merge-patch';
export { groupOf, parseApiVersion, parseGroupVersion, type GroupVersion } from './schema/group-version';
export { RealClock, realClock, sleep, type Clock, type PassiveClock, type TimerHandle } from './clock/clock';
export { formatTime } from './time';
export { LRUExpireCache, type LRUExpireCacheOptions } from './cache/lru-expire-cache';
export { compareKubernetesVersions, parseKubernetesVersion } from './version/version';
