// Object builders for the KCP unit tests.
import {
  BOOTSTRAP_API_VERSION,
  CLUSTER_API_VERSION,
  CONTROLPLANE_API_VERSION,
  type KubeadmConfig,
  type KubeadmControlPlane,
  type Machine,
} from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';

export const NS = 'default';
export const CLUSTER = 'c1';
export const INFRA_API_VERSION = 'infrastructure.cluster.x-k8s.io/v1alpha1';

export function kcp(overrides: Partial<KubeadmControlPlane['spec']> = {}): KubeadmControlPlane {
  return {
    apiVersion: CONTROLPLANE_API_VERSION,
    kind: 'KubeadmControlPlane',
    metadata: { name: 'cp', namespace: NS, uid: 'kcp-uid', labels: { 'cluster.x-k8s.io/cluster-name': CLUSTER } },
    spec: {
      replicas: 3,
      version: 'v1.30.0',
      machineTemplate: {
        spec: {
          infrastructureRef: {
            apiGroup: 'infrastructure.cluster.x-k8s.io',
            kind: 'InMemoryMachineTemplate',
            name: 'tmpl-a',
          },
        },
      },
      kubeadmConfigSpec: {
        clusterConfiguration: { etcd: { local: { imageTag: '3.5.0' } }, apiServer: { extraArgs: [] } },
        initConfiguration: { nodeRegistration: { name: '{{ ds.meta_data.local_hostname }}' } },
        joinConfiguration: { nodeRegistration: { name: '{{ ds.meta_data.local_hostname }}' } },
        files: [{ path: '/etc/a', content: 'a' }],
      },
      ...overrides,
    },
  };
}

export function machine(
  name: string,
  opts: {
    version?: string;
    created?: string;
    annotations?: Record<string, string>;
    labels?: Record<string, string>;
    nodeRef?: boolean;
    deleting?: boolean;
  } = {},
): Machine {
  const m: Machine = {
    apiVersion: CLUSTER_API_VERSION,
    kind: 'Machine',
    metadata: {
      name,
      namespace: NS,
      uid: `${name}-uid`,
      creationTimestamp: opts.created ?? '2026-01-01T00:00:00Z',
      labels: {
        'cluster.x-k8s.io/cluster-name': CLUSTER,
        'cluster.x-k8s.io/control-plane': '',
        ...(opts.labels ?? {}),
      },
      annotations: opts.annotations,
      ownerReferences: [
        {
          apiVersion: CONTROLPLANE_API_VERSION,
          kind: 'KubeadmControlPlane',
          name: 'cp',
          uid: 'kcp-uid',
          controller: true,
        },
      ],
    },
    spec: {
      clusterName: CLUSTER,
      version: opts.version ?? 'v1.30.0',
      bootstrap: { configRef: { apiGroup: 'bootstrap.cluster.x-k8s.io', kind: 'KubeadmConfig', name } },
      infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'InMemoryMachine', name },
    },
  };
  if (opts.nodeRef !== false) m.status = { nodeRef: { name } };
  if (opts.deleting) m.metadata.deletionTimestamp = '2026-01-02T00:00:00Z';
  if (!opts.annotations) delete m.metadata.annotations;
  return m;
}

/** The KubeadmConfig KCP would have created for `k` (join unless `init`). */
export function kubeadmConfig(name: string, k: KubeadmControlPlane, opts: { init?: boolean } = {}): KubeadmConfig {
  const spec = structuredClone(k.spec.kubeadmConfigSpec ?? {}) as KubeadmConfig['spec'];
  if (opts.init) delete spec.joinConfiguration;
  else {
    delete spec.initConfiguration;
    spec.joinConfiguration = { ...(spec.joinConfiguration as object), controlPlane: {} };
  }
  return {
    apiVersion: BOOTSTRAP_API_VERSION,
    kind: 'KubeadmConfig',
    metadata: { name, namespace: NS, uid: `${name}-kc-uid` },
    spec,
  };
}

export function infraTemplate(
  name: string,
  spec: Record<string, unknown> = { image: 'ubuntu-22.04', resources: { cpu: 2 } },
): KubeObject {
  return {
    apiVersion: INFRA_API_VERSION,
    kind: 'InMemoryMachineTemplate',
    metadata: { name, namespace: NS },
    spec: { template: { spec } },
  };
}

export function infraMachine(
  name: string,
  clonedFrom = 'tmpl-a',
  spec: Record<string, unknown> = { image: 'ubuntu-22.04', resources: { cpu: 2 } },
): KubeObject {
  return {
    apiVersion: INFRA_API_VERSION,
    kind: 'InMemoryMachine',
    metadata: {
      name,
      namespace: NS,
      annotations: {
        'cluster.x-k8s.io/cloned-from-name': clonedFrom,
        'cluster.x-k8s.io/cloned-from-groupkind': 'InMemoryMachineTemplate.infrastructure.cluster.x-k8s.io',
      },
    },
    spec,
  };
}
