export * from './client/types';
export * from './client/errors';
export * from './features';
export { KubeClient, KubeClientOptions } from './client/kube-client';
export * from './client/in-cluster';
export { ClientRateLimit, RequestRateLimiter, TokenBucketRateLimiter, rateLimiterFor } from './client/token-bucket';
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

export { SharedInformer, SharedInformerOptions, InformerEventHandler, objectKey } from './cache/informer';
export { InformerCache, CacheOptions, CacheListOptions, isAtLeast } from './cache/cache';
export { CachedClient } from './cache/cached-client';
export {
  LabelSelector,
  SelectorOperator,
  SelectorRequirement,
  SelectorParseError,
  parseSelector,
  matchesSelector,
  labelSelectorToString,
} from './cache/label-selector';

export { WorkQueue, WorkQueueOptions } from './workqueue/workqueue';
export { RateLimiter, ItemExponentialFailureRateLimiter, ExponentialBackoffOptions } from './workqueue/rate-limiter';
export { Clock, FakeClock, RealClock, realClock, TimerHandle } from './util/clock';

export * from './controller/types';
export { Controller, decideRequeue, ReconcileOutcome } from './controller/controller';
export { controllerOwnerRequests, requestFor, groupOf } from './controller/mapping';
export * from './controller/predicates';

export { LeaderElector, LeaderElectionOptions, LeaderCallbacks } from './leader/leader-elector';
export { Lease, decideLease, microTime } from './leader/lease';
export { Manager, ManagerOptions } from './manager/manager';

export { ControllerRuntimeModule, ControllerRuntimeModuleOptions, ManagerLifecycle } from './nest/controller-runtime.module';
export { ReconcilerFor, RECONCILER_FOR } from './nest/reconciler-for.decorator';
export * from './nest/nest-compat';
export * from './nest/tokens';
export { ApiEventRecorder, type EventRecorder } from './events/recorder';
