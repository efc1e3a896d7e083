export {
  startKubeControlPlane,
  kubeAssetsDir,
  KUBEBUILDER_ASSETS,
  type KubeControlPlane,
  type KubeControlPlaneOptions,
} from './control-plane';
export { EtcdCluster, type EtcdMember, type EtcdClusterOptions } from './etcd';
export { envtestTarget, type EnvtestTarget } from './target';
export { installCrds, CRDS_READY_TIMEOUT_MS } from './crds';
export {
  ADMIN_USER,
  KubeApiServer,
  getWithToken,
  requestWithToken,
  type KubeApiServerEndpoint,
  type KubeApiServerOptions,
} from './kube-apiserver';
export { ComponentError, ManagedProcess, freePort } from './process';
export { generateServingCerts, type ServingCerts } from './tls';
export {
  AuditLog,
  AuditRequestCounter,
  countAuditEvents,
  AUDIT_POLICY,
  type AuditCounts,
  type AuditEvent,
} from './audit';
