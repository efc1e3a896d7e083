export { ApiServer, type ApiServerOptions, type Logger, type StartedServer } from './server/apiserver';
export { type RequestCounts, RequestMetrics } from './server/metrics';
export { type KubeconfigArgs, renderKubeconfig } from './server/kubeconfig';
export { type PortForwardBackend, type PortForwardTarget } from './server/portforward';
export { ensurePrivateDir } from './storage';
