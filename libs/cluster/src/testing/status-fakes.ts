// Fakes for the status specs, as the fake* builders of upstream cluster_controller_status_test.go. Used by specs
// only (not exported from the lib).
import type { Cluster, Condition, ConditionStatus, Machine, MachineDeployment, MachineSet } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';

export const ZERO_TIME = '';

export interface C {
  type: string;
  status?: ConditionStatus;
  reason?: string;
  message?: string;
}

/** A condition as upstream's `condition{}` option (lastTransitionTime irrelevant to these specs). */
export const cond = (c: C): Condition =>
  ({
    type: c.type,
    status: c.status ?? '',
    reason: c.reason ?? '',
    lastTransitionTime: '2026-01-01T00:00:00Z',
    ...(c.message ? { message: c.message } : {}),
  }) as Condition;

type ClusterOpts = {
  controlPlaneRef?: { kind?: string; name?: string };
  infrastructureRef?: { kind?: string; name?: string };
  infrastructureProvisioned?: boolean;
  controlPlaneInitialized?: boolean;
  deleted?: boolean;
  conditions?: C[];
  availabilityGates?: { conditionType: string; polarity?: 'Positive' | 'Negative' }[];
};

export function fakeCluster(name: string, o: ClusterOpts = {}): Cluster {
  const ref = (r?: { kind?: string; name?: string }) =>
    r ? { apiGroup: 'example.com', kind: r.kind ?? '', name: r.name ?? '' } : undefined;
  const initialization = {
    ...(o.infrastructureProvisioned !== undefined ? { infrastructureProvisioned: o.infrastructureProvisioned } : {}),
    ...(o.controlPlaneInitialized !== undefined ? { controlPlaneInitialized: o.controlPlaneInitialized } : {}),
  };
  return {
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Cluster',
    metadata: {
      name,
      namespace: 'default',
      ...(o.deleted ? { deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['cluster.cluster.x-k8s.io'] } : {}),
    },
    spec: {
      ...(o.controlPlaneRef ? { controlPlaneRef: ref(o.controlPlaneRef) } : {}),
      ...(o.infrastructureRef ? { infrastructureRef: ref(o.infrastructureRef) } : {}),
      ...(o.availabilityGates ? { availabilityGates: o.availabilityGates } : {}),
    },
    status: { initialization, ...(o.conditions ? { conditions: o.conditions.map(cond) } : {}) },
  } as Cluster;
}

/** An unstructured provider object: `status` is merged in as given (conditions as JSON, v1beta1 ones included). */
export function fakeUnstructured(
  kind: string,
  name: string,
  fields: { spec?: object; status?: object } = {},
): KubeObject {
  return { apiVersion: 'example.com/v1beta2', kind, metadata: { name }, ...fields } as KubeObject;
}
export const fakeControlPlane = (name: string, fields?: { spec?: object; status?: object }) =>
  fakeUnstructured('FakeControlPlane', name, fields);
export const fakeInfraCluster = (name: string, fields?: { spec?: object; status?: object }) =>
  fakeUnstructured('FakeInfraCluster', name, fields);

type Counters = {
  desired?: number;
  replicas?: number;
  ready?: number;
  available?: number;
  upToDate?: number;
  versions?: { version: string; replicas?: number }[];
};

interface OwnerOpts extends Counters {
  ownedByCluster?: string;
  conditions?: C[];
}

const ownerRefs = (cluster?: string) =>
  cluster
    ? { ownerReferences: [{ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', name: cluster, uid: 'u' }] }
    : {};

function replicaStatus(o: Counters) {
  return {
    ...(o.replicas !== undefined ? { replicas: o.replicas } : {}),
    ...(o.ready !== undefined ? { readyReplicas: o.ready } : {}),
    ...(o.available !== undefined ? { availableReplicas: o.available } : {}),
    ...(o.upToDate !== undefined ? { upToDateReplicas: o.upToDate } : {}),
    ...(o.versions ? { versions: o.versions } : {}),
  };
}

export function fakeMachineDeployment(name: string, o: OwnerOpts = {}): MachineDeployment {
  return {
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'MachineDeployment',
    metadata: { name, namespace: 'default' },
    spec: { clusterName: 'c', ...(o.desired !== undefined ? { replicas: o.desired } : {}) },
    status: { ...replicaStatus(o), ...(o.conditions ? { conditions: o.conditions.map(cond) } : {}) },
  } as unknown as MachineDeployment;
}

export function fakeMachineSet(name: string, o: OwnerOpts = {}): MachineSet {
  return {
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'MachineSet',
    metadata: { name, namespace: 'default', ...ownerRefs(o.ownedByCluster) },
    spec: { clusterName: 'c', ...(o.desired !== undefined ? { replicas: o.desired } : {}) },
    status: { ...replicaStatus(o), ...(o.conditions ? { conditions: o.conditions.map(cond) } : {}) },
  } as unknown as MachineSet;
}

interface MachineOpts {
  ownedByCluster?: string;
  version?: string;
  conditions?: C[];
  controlPlane?: boolean;
  /** metadata.creationTimestamp; upstream's fakes leave it zero (long ago). */
  creationTimestamp?: string;
  nodeRef?: string;
}

export function fakeMachine(name: string, o: MachineOpts = {}): Machine {
  return {
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Machine',
    metadata: {
      name,
      namespace: 'default',
      ...ownerRefs(o.ownedByCluster),
      ...(o.controlPlane ? { labels: { 'cluster.x-k8s.io/control-plane': '' } } : {}),
      ...(o.creationTimestamp ? { creationTimestamp: o.creationTimestamp } : {}),
    },
    spec: {
      clusterName: 'c',
      bootstrap: {},
      infrastructureRef: { apiGroup: 'example.com', kind: 'K', name },
      ...(o.version ? { version: o.version } : {}),
    },
    status: {
      ...(o.conditions ? { conditions: o.conditions.map(cond) } : {}),
      ...(o.nodeRef ? { nodeRef: { name: o.nodeRef } } : {}),
    },
  } as unknown as Machine;
}

/** The conditions of an unstructured object as upstream's fakes write them (status.conditions, JSON). */
export const unstructuredConditions = (...cs: C[]) =>
  cs.map((c) => ({
    type: c.type,
    status: c.status ?? '',
    reason: c.reason ?? '',
    message: c.message ?? '',
    lastTransitionTime: '',
  }));
