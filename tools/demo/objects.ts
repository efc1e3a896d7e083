// The demo's objects: a Cluster on the in-memory provider with a KubeadmControlPlane and a MachineDeployment, and
// the two changes it makes (a version bump the reference updater does in place; an image change it cannot).
import {
  BOOTSTRAP_API_VERSION,
  BOOTSTRAP_GROUP,
  CLUSTER_API_VERSION,
  CLUSTER_NAME_LABEL,
  CONTROLPLANE_API_VERSION,
  CONTROLPLANE_GROUP,
  INFRASTRUCTURE_GROUP,
  MACHINE_DEPLOYMENT_NAME_LABEL,
  type Cluster,
  type KubeadmConfigTemplate,
  type KubeadmControlPlane,
  type MachineDeployment,
} from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import { INMEMORY_API_VERSION, type InMemoryCluster, type InMemoryMachineTemplate } from '@capi/inmemory';

export interface DemoSpec {
  namespace: string;
  cluster: string;
  controlPlaneReplicas: number;
  workerReplicas: number;
  /** Kubernetes version at creation, and after the in-place change. */
  version: string;
  upgradeVersion: string;
  /** VM image at creation, and after the rollout (an image cannot change in place). */
  image: string;
  newImage: string;
}

export const DEFAULT_DEMO: DemoSpec = {
  namespace: 'default',
  cluster: 'demo',
  controlPlaneReplicas: 3,
  workerReplicas: 3,
  version: 'v1.31.0',
  upgradeVersion: 'v1.31.1',
  image: 'ubuntu-24.04-v1',
  newImage: 'ubuntu-24.04-v2',
};

export const names = (s: DemoSpec) => ({
  controlPlane: `${s.cluster}-cp`,
  machineDeployment: `${s.cluster}-md-0`,
  bootstrapTemplate: `${s.cluster}-md-0`,
  /** Infra template names per image generation (templates are immutable by convention: a change is a new one). */
  cpInfraTemplate: (gen: number) => `${s.cluster}-cp-${gen}`,
  mdInfraTemplate: (gen: number) => `${s.cluster}-md-0-${gen}`,
});

const ownerRef = (cluster: Cluster) => ({
  apiVersion: CLUSTER_API_VERSION,
  kind: 'Cluster',
  name: cluster.metadata.name!,
  uid: cluster.metadata.uid!,
});
const labels = (s: DemoSpec) => ({ [CLUSTER_NAME_LABEL]: s.cluster });

export function clusterObject(s: DemoSpec): Cluster {
  return {
    apiVersion: CLUSTER_API_VERSION,
    kind: 'Cluster',
    metadata: { name: s.cluster, namespace: s.namespace, labels: labels(s) },
    spec: {
      infrastructureRef: { apiGroup: INFRASTRUCTURE_GROUP, kind: 'InMemoryCluster', name: s.cluster },
      controlPlaneRef: { apiGroup: CONTROLPLANE_GROUP, kind: 'KubeadmControlPlane', name: names(s).controlPlane },
    },
  };
}

/** Owned by the Cluster, as upstream's Cluster controller arranges for the objects its refs name. */
export function inMemoryClusterObject(s: DemoSpec, cluster: Cluster): InMemoryCluster {
  return {
    apiVersion: INMEMORY_API_VERSION,
    kind: 'InMemoryCluster',
    metadata: { name: s.cluster, namespace: s.namespace, labels: labels(s), ownerReferences: [ownerRef(cluster)] },
    spec: {},
  };
}

export function machineTemplateObject(s: DemoSpec, name: string, image: string): InMemoryMachineTemplate {
  return {
    apiVersion: INMEMORY_API_VERSION,
    kind: 'InMemoryMachineTemplate',
    metadata: { name, namespace: s.namespace, labels: labels(s) },
    spec: { template: { spec: { image, resources: { cpu: 2, memoryMiB: 4096 } } } },
  };
}

export function controlPlaneObject(s: DemoSpec, cluster: Cluster): KubeadmControlPlane {
  return {
    apiVersion: CONTROLPLANE_API_VERSION,
    kind: 'KubeadmControlPlane',
    metadata: {
      name: names(s).controlPlane,
      namespace: s.namespace,
      labels: labels(s),
      ownerReferences: [ownerRef(cluster)],
    },
    spec: {
      replicas: s.controlPlaneReplicas,
      version: s.version,
      machineTemplate: {
        spec: {
          infrastructureRef: {
            apiGroup: INFRASTRUCTURE_GROUP,
            kind: 'InMemoryMachineTemplate',
            name: names(s).cpInfraTemplate(1),
          },
        },
      },
      kubeadmConfigSpec: { clusterConfiguration: {}, initConfiguration: {}, joinConfiguration: {} },
      // maxSurge 0: KCP goes straight to its scale-down step, where it updates in place (with 1 it first creates a
      // new Machine and later removes a surplus one, so one Machine per step would be replaced).
      rollout: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0 } } },
    },
  } as KubeadmControlPlane;
}

export function bootstrapTemplateObject(s: DemoSpec): KubeadmConfigTemplate {
  return {
    apiVersion: BOOTSTRAP_API_VERSION,
    kind: 'KubeadmConfigTemplate',
    metadata: { name: names(s).bootstrapTemplate, namespace: s.namespace, labels: labels(s) },
    spec: { template: { spec: { joinConfiguration: {} } } },
  } as KubeadmConfigTemplate;
}

export function machineDeploymentObject(s: DemoSpec, cluster: Cluster): MachineDeployment {
  const md = names(s).machineDeployment;
  // No defaulting webhook here: selector and template labels are spelled out as upstream's webhook would set them.
  const selectorLabels = { ...labels(s), [MACHINE_DEPLOYMENT_NAME_LABEL]: md };
  return {
    apiVersion: CLUSTER_API_VERSION,
    kind: 'MachineDeployment',
    metadata: { name: md, namespace: s.namespace, labels: labels(s), ownerReferences: [ownerRef(cluster)] },
    spec: {
      clusterName: s.cluster,
      replicas: s.workerReplicas,
      selector: { matchLabels: selectorLabels },
      // One Machine at a time and no surge, so every Machine is moved and updated in place (see the KCP note above).
      rollout: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } } },
      template: {
        metadata: { labels: selectorLabels },
        spec: {
          clusterName: s.cluster,
          version: s.version,
          bootstrap: {
            configRef: { apiGroup: BOOTSTRAP_GROUP, kind: 'KubeadmConfigTemplate', name: names(s).bootstrapTemplate },
          },
          infrastructureRef: {
            apiGroup: INFRASTRUCTURE_GROUP,
            kind: 'InMemoryMachineTemplate',
            name: names(s).mdInfraTemplate(1),
          },
        },
      },
    },
  } as MachineDeployment;
}

/** JSON merge patches for the in-place change (version on KCP and MD). */
export const versionPatch = {
  controlPlane: (version: string) => ({ spec: { version } }),
  machineDeployment: (version: string) => ({ spec: { template: { spec: { version } } } }),
};

/** JSON merge patches pointing KCP and MD at new infra templates (the rollout change). */
export const infraTemplatePatch = {
  controlPlane: (name: string) => ({
    spec: {
      machineTemplate: {
        spec: { infrastructureRef: { apiGroup: INFRASTRUCTURE_GROUP, kind: 'InMemoryMachineTemplate', name } },
      },
    },
  }),
  machineDeployment: (name: string) => ({
    spec: {
      template: {
        spec: { infrastructureRef: { apiGroup: INFRASTRUCTURE_GROUP, kind: 'InMemoryMachineTemplate', name } },
      },
    },
  }),
};

/**
 * Creates the demo cluster's objects in dependency order through `create` (the demo's adds a clear AlreadyExists
 * error); `adjustMachineDeployment` may change the MachineDeployment before it is created (the bench's rollout).
 */
export async function createDemoCluster(
  create: <T extends KubeObject>(obj: T) => Promise<T>,
  s: DemoSpec,
  adjustMachineDeployment: (md: MachineDeployment) => void = () => undefined,
): Promise<void> {
  const n = names(s);
  const cluster = await create<Cluster>(clusterObject(s));
  await create(inMemoryClusterObject(s, cluster));
  await create(machineTemplateObject(s, n.cpInfraTemplate(1), s.image));
  await create(machineTemplateObject(s, n.mdInfraTemplate(1), s.image));
  await create(bootstrapTemplateObject(s));
  await create<KubeadmControlPlane>(controlPlaneObject(s, cluster));
  const md = machineDeploymentObject(s, cluster);
  adjustMachineDeployment(md);
  await create<MachineDeployment>(md);
}
