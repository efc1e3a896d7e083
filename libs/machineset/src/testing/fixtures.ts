// Builders for unit tests of the pure MachineSet / MachineDeployment decisions.
import { CLUSTER_API_VERSION, type Condition, type Machine, type MachineDeployment, type MachineSet } from '@capi/api';

export const NOW = new Date('2026-01-10T00:00:00Z');
export const clock = { now: () => NOW.getTime() };

export function machine(
  name: string,
  opts: {
    created?: string;
    annotations?: Record<string, string>;
    labels?: Record<string, string>;
    deleting?: boolean;
    nodeRef?: boolean;
    conditions?: Array<Pick<Condition, 'type' | 'status'> & Partial<Condition>>;
    owner?: string;
    version?: string;
  } = {},
): Machine {
  return {
    apiVersion: CLUSTER_API_VERSION,
    kind: 'Machine',
    metadata: {
      name,
      namespace: 'ns',
      uid: `uid-${name}`,
      creationTimestamp: opts.created ?? '2026-01-01T00:00:00Z',
      ...(opts.deleting ? { deletionTimestamp: '2026-01-09T00:00:00Z' } : {}),
      ...(opts.annotations ? { annotations: opts.annotations } : {}),
      labels: opts.labels ?? {},
      ...(opts.owner
        ? {
            ownerReferences: [
              {
                apiVersion: CLUSTER_API_VERSION,
                kind: 'MachineSet',
                name: opts.owner,
                uid: `uid-${opts.owner}`,
                controller: true,
              },
            ],
          }
        : {}),
    },
    spec: {
      clusterName: 'c1',
      bootstrap: { dataSecretName: 'secret' },
      infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'TestMachine', name },
      ...(opts.version ? { version: opts.version } : {}),
    },
    status: {
      ...(opts.nodeRef === false ? {} : { nodeRef: { name: `node-${name}` } }),
      conditions: (opts.conditions ?? []).map((c) => ({
        lastTransitionTime: '2026-01-01T00:00:00Z',
        reason: 'R',
        ...c,
      })) as Condition[],
    },
  };
}

export function machineSet(
  name: string,
  opts: {
    replicas?: number;
    hash?: string;
    annotations?: Record<string, string>;
    version?: string;
    order?: 'Random' | 'Newest' | 'Oldest';
    created?: string;
  } = {},
): MachineSet {
  const hash = opts.hash ?? name;
  return {
    apiVersion: CLUSTER_API_VERSION,
    kind: 'MachineSet',
    metadata: {
      name,
      namespace: 'ns',
      uid: `uid-${name}`,
      generation: 1,
      creationTimestamp: opts.created ?? '2026-01-02T00:00:00Z',
      labels: { 'cluster.x-k8s.io/deployment-name': 'md' },
      annotations: opts.annotations ?? {},
      ownerReferences: [
        { apiVersion: CLUSTER_API_VERSION, kind: 'MachineDeployment', name: 'md', uid: 'uid-md', controller: true },
      ],
    },
    spec: {
      clusterName: 'c1',
      replicas: opts.replicas ?? 3,
      selector: { matchLabels: { 'cluster.x-k8s.io/deployment-name': 'md', 'machine-template-hash': hash } },
      template: {
        metadata: { labels: { 'cluster.x-k8s.io/deployment-name': 'md', 'machine-template-hash': hash } },
        spec: {
          clusterName: 'c1',
          version: opts.version ?? 'v1.30.0',
          bootstrap: { dataSecretName: 'secret' },
          infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'TestMachineTemplate', name: 'tmpl' },
        },
      },
      ...(opts.order ? { deletion: { order: opts.order } } : {}),
    },
  };
}

export function machineDeployment(
  opts: { replicas?: number; version?: string; rolloutAfter?: string; maxSurge?: number; maxUnavailable?: number } = {},
): MachineDeployment {
  return {
    apiVersion: CLUSTER_API_VERSION,
    kind: 'MachineDeployment',
    metadata: { name: 'md', namespace: 'ns', uid: 'uid-md', generation: 2 },
    spec: {
      clusterName: 'c1',
      replicas: opts.replicas ?? 3,
      selector: { matchLabels: { 'cluster.x-k8s.io/deployment-name': 'md' } },
      rollout: {
        ...(opts.rolloutAfter ? { after: opts.rolloutAfter } : {}),
        strategy: {
          type: 'RollingUpdate',
          rollingUpdate: { maxSurge: opts.maxSurge ?? 1, maxUnavailable: opts.maxUnavailable ?? 0 },
        },
      },
      template: {
        metadata: { labels: { 'cluster.x-k8s.io/deployment-name': 'md' } },
        spec: {
          clusterName: 'c1',
          version: opts.version ?? 'v1.30.0',
          bootstrap: { dataSecretName: 'secret' },
          infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'TestMachineTemplate', name: 'tmpl' },
        },
      },
    },
  };
}
