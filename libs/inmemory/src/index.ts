export {
  INMEMORY_API_VERSION,
  INMEMORY_KIND_DEFINITIONS,
  type InMemoryCluster,
  InMemoryClusterDefinition,
  type InMemoryMachine,
  InMemoryMachineDefinition,
  type InMemoryMachineTemplate,
  InMemoryMachineTemplateDefinition,
} from './api/types';
export { inMemoryCrds, registerInMemoryKinds } from './api/register';
export {
  INMEMORY_HOST_BACKEND,
  INMEMORY_INPLACE_UPDATER,
  INMEMORY_OPTIONS,
  type InMemoryProviderOptions,
  WORKLOAD_CLUSTERS,
  WORKLOAD_SERVERS_MODES,
  type WorkloadServersMode,
} from './options';
export {
  type ClusterIdentity,
  type ClusterKey,
  type RunningWorkloadCluster,
  WorkloadClusters,
  type WorkloadClustersOptions,
} from './workload/workload-clusters';
export type { StorageUsage, WorkloadServer, WorkloadServerHost } from './workload/server-host';

// The child process's entry; exported so that the package build compiles it next to the host.
export { serveWorkloadServers } from './workload/server-process';
export { type InMemoryHostBackend, WorkloadNodeHostBackend, type WorkloadNodeHostBackendOptions } from './host/backend';
export {
  INMEMORY_ACCEPTED_CHANGES,
  startInMemoryInPlaceUpdater,
  type StartInMemoryInPlaceUpdaterOptions,
} from './host/updater';
export { InMemoryProviderModule } from './inmemory-provider.module';
export {
  DEFAULT_POD_SHUTDOWN_MS,
  DEFAULT_VOLUME_DETACH_DELAY_MS,
  WORKLOAD_SIMULATOR_FIELD_MANAGER,
  type WorkloadPodsOptions,
} from './pods/simulator';
export { INMEMORY_CSI_DRIVER } from './pods/volumes';
export { SAMPLE_NAME, SAMPLE_NAMESPACE } from './pods/sample-workload';
export { HOST_FILES_ANNOTATION } from './api/constants';
export { fileDigest, hostFilesOf, type HostFiles } from './host/files';
