export {
  type ClusterKey,
  kubeConfigFromSecret,
  type KubeconfigSecret,
  kubeconfigSecretClientProvider,
  WORKLOAD_CLUSTER_CLIENT_OPTIONS,
  WORKLOAD_CLUSTER_CLIENT_PROVIDER,
  type WorkloadClusterClientOptions,
  type WorkloadClusterClientProvider,
  WorkloadClusterConnectionError,
} from './workload-cluster';
export {
  type ClusterHealth,
  NODE_PROVIDER_ID_FIELD,
  type NodeEventHandler,
  type NodeEventType,
  WORKLOAD_CLUSTER_CACHE,
  WorkloadClusterCache,
  type WorkloadClusterCacheOptions,
} from './workload-cluster-cache';
export {
  SHARED_WORKLOAD_CLUSTER_CACHE,
  WorkloadClusterCacheModule,
  WorkloadClusterClientOptionsModule,
} from './workload-cluster-cache.module';
export type { HealthCheckingState, HealthProbeOptions } from './health-probe';
export { findNodeByProviderID } from './nodes';
