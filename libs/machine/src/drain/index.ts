// Node drain (upstream core/reconcilers/machine/drain): cordon, Pods to evict, evictions, condition message.
export { DrainHelper, EVICTION_TIMEOUT_MS, type DrainHelperOptions } from './drain';
export {
  conditionMessage,
  drainCompleted,
  evictionOutcome,
  planEviction,
  podListToString,
  type EvictionResult,
} from './eviction-result';
export { filterPods, MIRROR_POD_ANNOTATION, PodDeleteList, podKey, type PodDelete, type PodObject } from './filters';
export { matchingMachineDrainRules } from './rules';
