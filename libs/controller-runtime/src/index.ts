export * from './client/types';
export * from './client/errors';
export * from './features';
export { KubeClient, KubeClientOptions } from './client/kube-client';
export * from './client/in-cluster';
export { ClientRateLimit, RequestRateLimiter, TokenBucketRateLimiter, rateLimiterFor } from './client/token-bucket';
export {
  ApiWarningHandler,
  parseWarningHeader,
  type ApiWarning,
  type ApiWarningHandlerOptions,
} from './client/warnings';
export { RestMapper, ResourceMapping, NoKindMatchError } from './client/rest-mapper';
export {
  ClientMetrics,
  ClientRequestInfo,
  ClientVerb,
  CountingClientMetrics,
  PromClientMetrics,
  WRITE_VERBS,
  combineClientMetrics,
} from './client/client-metrics';

export {
  SharedInformer,
  SharedInformerOptions,
  InformerEventHandler,
  IndexFunc,
  NAMESPACE_INDEX,
  TransformFunc,
  objectKey,
} from './cache/informer';
export {
  InformerCache,
  CacheOptions,
  CacheListOptions,
  FieldExtractor,
  fieldIndexName,
  labelIndexField,
  isAtLeast,
} from './cache/cache';
export {
  OWNER_CONTROLLER_FIELD,
  NO_CONTROLLER_OWNER,
  controllerOwnerKey,
  indexByControllerOwner,
  indexByFieldPath,
  indexByLabel,
} from './cache/indexes';
export { CachedClient } from './cache/cached-client';

export { WorkQueue, WorkQueueOptions } from './workqueue/workqueue';
export { RateLimiter, ItemExponentialFailureRateLimiter, ExponentialBackoffOptions } from './workqueue/rate-limiter';

export * from './controller/types';
export { Controller, decideRequeue, ReconcileOutcome } from './controller/controller';
export { controllerOwnerRequests, requestFor } from './controller/mapping';
export * from './controller/predicates';

export { LeaderElector, LeaderElectionOptions, LeaderCallbacks } from './leader/leader-elector';
export { Lease, decideLease, microTime } from './leader/lease';
export { Manager, ManagerOptions } from './manager/manager';

export {
  ControllerRuntimeModule,
  ControllerRuntimeModuleOptions,
  ManagerLifecycle,
} from './nest/controller-runtime.module';
export { ReconcilerFor, RECONCILER_FOR } from './nest/reconciler-for.decorator';
export { SCHEDULE_MODULE } from './nest/schedule';
export * from './nest/nest-compat';
export * from './nest/tokens';
export { ApiEventRecorder, type EventRecorder } from './events/recorder';
