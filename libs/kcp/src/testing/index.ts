// Test helpers of @capi/kcp for other libs' specs (`@capi/kcp/testing`): builders of KubeadmControlPlanes, their
// Machines, KubeadmConfigs and infrastructure objects. The envtest harness (./harness) serves this lib's own
// integration specs only: it starts other controllers and the in-memory provider.
export { CLUSTER, INFRA_API_VERSION, NS, infraMachine, infraTemplate, kcp, kubeadmConfig, machine } from './fixtures';
