export { ApiServer, type ApiServerOptions, type Logger, type StartedServer } from './server/apiserver';
export { type RequestCounts, RequestMetrics } from './server/metrics';
export { type KubeconfigArgs, renderKubeconfig } from './server/kubeconfig';
export { type PortForwardBackend, type PortForwardTarget } from './server/portforward';
export { ensurePrivateDir } from './storage';
export {
  CREDENTIAL_FILES,
  restoreSnapshot,
  saveSnapshot,
  SnapshotError,
  StorageDamagedError,
  type DataDirLayout,
  type SnapshotSummary,
} from './storage';
export { snapshotCommand, type SnapshotCommandOptions } from './snapshot-command';
