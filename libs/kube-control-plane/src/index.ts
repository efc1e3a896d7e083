export {
  kubeAssetsDir,
  type KubeControlPlane,
  type KubeControlPlaneOptions,
  startKubeControlPlane,
} from './control-plane';
export { EtcdCluster, type EtcdClusterOptions, type EtcdMember, type EtcdTlsOptions } from './etcd';
export { envtestTarget, type EnvtestTarget } from './target';
export {
  getWithToken,
  KubeApiServer,
  type KubeApiServerEndpoint,
  type KubeApiServerOptions,
  requestWithToken,
} from './kube-apiserver';
export { freePort, ManagedProcess } from './process';
export { type AuditCounts, type AuditEvent, AuditLog } from './audit';
