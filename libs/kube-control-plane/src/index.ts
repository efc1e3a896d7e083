export { startKubeControlPlane, kubeAssetsDir, KUBEBUILDER_ASSETS, type KubeControlPlane, type KubeControlPlaneOptions } from './control-plane';
export { EtcdCluster, type EtcdMember, type EtcdClusterOptions } from './etcd';
export { KubeApiServer, getWithToken, type KubeApiServerEndpoint, type KubeApiServerOptions } from './kube-apiserver';
export { ComponentError, ManagedProcess, freePort } from './process';
export { generateServingCerts, type ServingCerts } from './tls';
