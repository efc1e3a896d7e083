// API groups, versions and GroupVersionKinds of every kind this project types.
export const CLUSTER_GROUP = 'cluster.x-k8s.io';
export const CONTROLPLANE_GROUP = 'controlplane.cluster.x-k8s.io';
export const BOOTSTRAP_GROUP = 'bootstrap.cluster.x-k8s.io';
export const RUNTIME_GROUP = 'runtime.cluster.x-k8s.io';
export const INFRASTRUCTURE_GROUP = 'infrastructure.cluster.x-k8s.io';
export const V1BETA2 = 'v1beta2';

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

const gvk = (group: string, kind: string, version = V1BETA2): GroupVersionKind & { apiVersion: string } => ({
  group,
  version,
  kind,
  apiVersion: `${group}/${version}`,
});

export const CLUSTER_API_VERSION = `${CLUSTER_GROUP}/${V1BETA2}`;
export const CONTROLPLANE_API_VERSION = `${CONTROLPLANE_GROUP}/${V1BETA2}`;
export const BOOTSTRAP_API_VERSION = `${BOOTSTRAP_GROUP}/${V1BETA2}`;
export const RUNTIME_API_VERSION = `${RUNTIME_GROUP}/${V1BETA2}`;

export const ClusterGVK = gvk(CLUSTER_GROUP, 'Cluster');
export const MachineGVK = gvk(CLUSTER_GROUP, 'Machine');
export const MachineSetGVK = gvk(CLUSTER_GROUP, 'MachineSet');
export const MachineDeploymentGVK = gvk(CLUSTER_GROUP, 'MachineDeployment');
export const MachineHealthCheckGVK = gvk(CLUSTER_GROUP, 'MachineHealthCheck');
export const MachineDrainRuleGVK = gvk(CLUSTER_GROUP, 'MachineDrainRule');
export const KubeadmControlPlaneGVK = gvk(CONTROLPLANE_GROUP, 'KubeadmControlPlane');
export const KubeadmConfigGVK = gvk(BOOTSTRAP_GROUP, 'KubeadmConfig');
export const KubeadmConfigTemplateGVK = gvk(BOOTSTRAP_GROUP, 'KubeadmConfigTemplate');
export const ExtensionConfigGVK = gvk(RUNTIME_GROUP, 'ExtensionConfig');
