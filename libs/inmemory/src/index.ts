import { registerInMemoryKinds } from './api/register';

export * from './api/types';
export * from './api/constants';
export { registerInMemoryKinds, inMemoryCrds } from './api/register';
export * from './options';
export {
  WorkloadClusters,
  ensureKubeconfigSecret,
  kubeconfigSecret,
  kubeconfigSecretUpToDate,
  type ClusterKey,
  type ClusterIdentity,
  type RunningWorkloadCluster,
  type WorkloadClustersOptions,
} from './workload/workload-clusters';
export {
  InProcessWorkloadServerHost,
  WORKLOAD_PARSED_CACHE_CHARS,
  type StorageUsage,
  type WorkloadServer,
  type WorkloadServerHost,
} from './workload/server-host';
export {
  ChildProcessWorkloadServerHost,
  type ChildProcessWorkloadServerHostOptions,
} from './workload/child-process-host';
// The child process's entry; exported so that the package build compiles it next to the host.
export { serveWorkloadServers } from './workload/server-process';
export {
  WorkloadNodeHostBackend,
  HostUpdateError,
  hostStateAfterUpdate,
  type InMemoryHostBackend,
  type WorkloadNodeHostBackendOptions,
} from './host/backend';
export { appliedSpecOf, isNodeReady, kubeletVersionOf, type AppliedHostSpec, type HostState } from './host/node';
export {
  INMEMORY_ACCEPTED_CHANGES,
  startInMemoryInPlaceUpdater,
  updateMachineOnHost,
  withInMemoryAcceptedChanges,
  type StartInMemoryInPlaceUpdaterOptions,
} from './host/updater';
export { InMemoryClusterReconciler } from './cluster/inmemory-cluster.reconciler';
export { InMemoryMachineReconciler } from './machine/inmemory-machine.reconciler';
export { KubeadmConfigReconciler } from './bootstrap/kubeadm-config.reconciler';
export { InMemoryProviderModule } from './inmemory-provider.module';

// Importing the provider makes its kinds part of the shared CRD registry (envtest, manager CRD install).
registerInMemoryKinds();
