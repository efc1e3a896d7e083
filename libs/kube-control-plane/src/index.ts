export { startKubeControlPlane, kubeAssetsDir, KUBEBUILDER_ASSETS, type KubeControlPlane, type KubeControlPlaneOptions } from './control-plane';
export { EtcdCluster, type EtcdMember, type EtcdClusterOptions } from './etcd';
export { ADMIN_USER, KubeApiServer, getWithToken, type KubeApiServerEndpoint, type KubeApiServerOptions } from './kube-apiserver';
export { ComponentError, ManagedProcess, freePort } from './process';
export { generateServingCerts, type ServingCerts } from './tls';
export { AuditLog, AuditRequestCounter, countAuditEvents, AUDIT_POLICY, type AuditCounts, type AuditEvent } from './audit';
