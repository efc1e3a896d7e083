/** Injection tokens provided by ControllerRuntimeModule.forRoot. */
export const KUBE_CONFIG = Symbol('KUBE_CONFIG');
/** Client: direct API client (every call is a request). */
export const KUBE_CLIENT = Symbol('KUBE_CLIENT');
/** Client: reads from the informer cache, writes to the API. */
export const CACHED_CLIENT = Symbol('CACHED_CLIENT');
/**
 * Client: reads every kind from the informer cache, the kinds the cached client reads from the API too
 * (Manager.secretCachingClient, upstream's secretCachingClient); writes to the API.
 */
export const SECRET_CACHING_CLIENT = Symbol('SECRET_CACHING_CLIENT');
/** InformerCache. */
export const CACHE = Symbol('CACHE');
/** Manager. */
export const MANAGER = Symbol('MANAGER');
/** prom-client Registry with controller/workqueue/client metrics. */
export const METRICS_REGISTRY = Symbol('METRICS_REGISTRY');
export const CONTROLLER_RUNTIME_OPTIONS = Symbol('CONTROLLER_RUNTIME_OPTIONS');
/** The LeadershipFence the client and the Runtime SDK client check before writes and hook calls. */
export const LEADERSHIP_FENCE = Symbol('LEADERSHIP_FENCE');
