export {
  WORKLOAD_CLUSTER_CLIENT_PROVIDER,
  kubeconfigSecretClientProvider,
  WorkloadClusterConnectionError,
  type WorkloadClusterClientProvider,
  type ClusterKey,
} from './workload-cluster';
export {
  WORKLOAD_CLUSTER_CACHE,
  WorkloadClusterCache,
  NODE_PROVIDER_ID_FIELD,
  type WorkloadClusterCacheOptions,
  type ClusterHealth,
  type NodeEventHandler,
  type NodeEventType,
} from './workload-cluster-cache';
export { SHARED_WORKLOAD_CLUSTER_CACHE, WorkloadClusterCacheModule } from './workload-cluster-cache.module';
export type { HealthProbeOptions } from './health-probe';
export { findNodeByProviderID } from './nodes';
