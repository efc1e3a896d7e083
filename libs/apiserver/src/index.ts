export { ApiServer, type ApiServerOptions, type StartedServer, type Logger } from './server/apiserver';
export { RequestMetrics, type RequestCounts } from './server/metrics';
export { renderKubeconfig, type KubeconfigArgs } from './server/kubeconfig';
