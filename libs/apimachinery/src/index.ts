// @capi/apimachinery: the pieces of k8s.io/apimachinery and k8s.io/utils the other libs share. Test helpers are in
// '@capi/apimachinery/testing'.
export type {
  KubeObject,
  ListMeta,
  ManagedFieldsEntry,
  ObjectList,
  ObjectMeta,
  OwnerReference,
  Status,
} from './meta/types';
export { shareManagedFieldsTrees, stripManagedFields } from './meta/managed-fields';
export { ensureOwnerRef, sameOwnerRef } from './meta/owner-references';
export {
  everything,
  formatLabelSelector,
  type Labels,
  type LabelSelector,
  labelSelectorAsSelector,
  LabelSelectorError,
  type LabelSelectorRequirement,
  matchesLabelSelector,
  nothing,
  type Operator,
  parseSelector,
  type Requirement,
  type Selector,
} from './labels';
export { canonicalJson, jsonEqual } from './json/equal';
export { cloneJson, deepFreeze } from './json/clone';
export { type FieldPath, getPath, hasPath, pickPaths, setPath } from './json/field-path';
export { fnv32a } from './hash/fnv';
export { createMergePatch, mergePatch } from './json/merge-patch';
export { groupOf, type GroupVersion, parseApiVersion, parseGroupVersion } from './schema/group-version';
export { type Clock, type PassiveClock, realClock, RealClock, sleep, type TimerHandle } from './clock/clock';
export { formatTime } from './time';
export { humanDuration, parseDuration, timestampSince } from './duration/duration';
export { LRUExpireCache, type LRUExpireCacheOptions } from './cache/lru-expire-cache';
export { compareKubernetesVersions, parseKubernetesVersion } from './version/version';
export { mustEqualLabelValue, mustFormatLabelValue } from './labels/format';
export {
  generateNameFromTemplate,
  MAX_NAME_LENGTH,
  NameTemplateError,
  RANDOM_LENGTH,
  randomString,
  renderNameTemplate,
} from './names/template';
export { isDNS1035Label, isDNS1123Label, isDNS1123Subdomain, isLabelKey, isLabelValue } from './validation/content';
export { listToString } from './names/list';
export { appendTo, groupBy } from './collections/group';
