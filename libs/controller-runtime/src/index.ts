export type {
  ApplyOptions,
  Client,
  DeleteOptions,
  ListOptions,
  ObjectRef,
  PatchOptions,
  PatchBuilder,
  PatchType,
  WatchEvent,
  WatchEventType,
  WatchHandle,
  WatchOptions,
  WriteOptions,
} from './client/types';
export { refOf } from './client/types';
export {
  ApiError,
  isAlreadyExists,
  isApiError,
  isConflict,
  isForbidden,
  isGone,
  isInvalid,
  isNotFound,
} from './client/errors';
export {
  FEATURE_GATES,
  FeatureGateError,
  FeatureGates,
  featureGatesFromEnv,
  FeatureGatesModule,
  type FeatureSpec,
  type FeatureStage,
  KNOWN_FEATURE_GATES,
  type KnownFeature,
  parseFeatureGateSpec,
} from './features';
export { KubeClient, type KubeClientOptions } from './client/kube-client';
export {
  inClusterKubeconfig,
  inClusterNamespace,
  type InClusterOptions,
  inClusterUnavailableReason,
} from './client/in-cluster';
export type { ClientRateLimit, RequestRateLimiter } from './client/token-bucket';
export { ApiWarningHandler, type ApiWarningHandlerOptions } from './client/warnings';
export { NoKindMatchError, type ResourceMapping, RestMapper } from './client/rest-mapper';
export {
  type ClientMetrics,
  type ClientRequestInfo,
  type ClientVerb,
  CountingClientMetrics,
  hostOf,
  PromClientMetrics,
} from './client/client-metrics';
export {
  type IndexFunc,
  type InformerEventHandler,
  SharedInformer,
  type SharedInformerOptions,
  type TransformFunc,
} from './cache/informer';
export {
  type ByObject,
  type CacheListOptions,
  type CacheOptions,
  type FieldExtractor,
  InformerCache,
  isAtLeast,
  kindKey,
  labelIndexField,
} from './cache/cache';
export {
  controllerOwnerKey,
  indexByControllerOwner,
  indexByFieldPath,
  indexByLabel,
  NO_CONTROLLER_OWNER,
  OWNER_CONTROLLER_FIELD,
} from './cache/indexes';
export { CachedClient, type CachedClientOptions } from './cache/cached-client';
export { WorkQueue, type WorkQueueOptions } from './workqueue/workqueue';
export {
  type ExponentialBackoffOptions,
  ItemExponentialFailureRateLimiter,
  type RateLimiter,
} from './workqueue/rate-limiter';
export type {
  ControllerHandle,
  ControllerOptions,
  ForSpec,
  GroupVersionKind,
  LogFields,
  MapContext,
  OwnsSpec,
  Predicate,
  ReconcileContext,
  ReconcileLogger,
  Reconciler,
  Request,
  Result,
  WatchSpec,
} from './controller/types';
export { Controller } from './controller/controller';
export { compareResourceVersion, type WrittenKind } from './controller/consistency';
export { STRUCTURED_LOGGER } from './controller/logger';
export { RECONCILE_TIME_BUCKETS, registerControllerRuntimeMetrics } from './controller/metrics';
export { UNFINISHED_WORK_UPDATE_PERIOD_MS, WORKQUEUE_DURATION_BUCKETS } from './workqueue/metrics';
export {
  allOf,
  annotationChangedPredicate,
  anyOf,
  generationChangedPredicate,
  hasAnnotationPredicate,
  labelChangedPredicate,
  resourceVersionChangedPredicate,
} from './controller/predicates';
export { type LeaderCallbacks, type LeaderElectionOptions, LeaderElector } from './leader/leader-elector';
export { LeadershipFence, LeadershipLostError } from './leader/fence';
export type { Lease } from './leader/lease';
export { Manager, type ManagerOptions } from './manager/manager';
export { ControllerRuntimeModule, type ControllerRuntimeModuleOptions } from './nest/controller-runtime.module';
export { RECONCILER_FOR, ReconcilerFor } from './nest/reconciler-for.decorator';
export { SCHEDULE_MODULE, addIntervalJob } from './nest/schedule';
export { assertNestCompatible } from './nest/nest-compat';
export {
  CACHE,
  CACHED_CLIENT,
  CONTROLLER_RUNTIME_OPTIONS,
  KUBE_CLIENT,
  KUBE_CONFIG,
  LEADERSHIP_FENCE,
  MANAGER,
  METRICS_REGISTRY,
  SECRET_CACHING_CLIENT,
} from './nest/tokens';
export { ApiEventRecorder, type EventRecorder } from './events/recorder';
