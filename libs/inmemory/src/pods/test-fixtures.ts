// Objects for the pods/ unit specs.
import type { KubeObject } from '@capi/apimachinery';
import type { ClusterSnapshot } from './types';

export function node(
  name: string,
  opts: { ready?: boolean; unschedulable?: boolean; controlPlane?: boolean; labels?: Record<string, string> } = {},
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, uid: `uid-${name}`, labels: { 'kubernetes.io/os': 'linux', ...opts.labels } },
    spec: {
      ...(opts.unschedulable ? { unschedulable: true } : {}),
      ...(opts.controlPlane
        ? { taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }] }
        : {}),
    },
    status: {
      conditions: [{ type: 'Ready', status: opts.ready === false ? 'False' : 'True' }],
      addresses: [{ type: 'InternalIP', address: `10.0.0.${name.length}` }],
    },
  };
}

export function pod(
  name: string,
  nodeName: string | undefined,
  opts: {
    owner?: KubeObject;
    ready?: boolean;
    phase?: string;
    deletionTimestamp?: string;
    grace?: number;
    labels?: Record<string, string>;
    created?: string;
    volumes?: object[];
    mirror?: boolean;
  } = {},
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'default',
      uid: `uid-${name}`,
      labels: opts.labels,
      creationTimestamp: opts.created ?? '2026-01-01T00:00:00Z',
      ...(opts.mirror ? { annotations: { 'kubernetes.io/config.mirror': 'x' } } : {}),
      ...(opts.deletionTimestamp
        ? { deletionTimestamp: opts.deletionTimestamp, deletionGracePeriodSeconds: opts.grace ?? 30 }
        : {}),
      ...(opts.owner
        ? {
            ownerReferences: [
              {
                apiVersion: opts.owner.apiVersion,
                kind: opts.owner.kind,
                name: opts.owner.metadata.name!,
                uid: opts.owner.metadata.uid!,
                controller: true,
              },
            ],
          }
        : {}),
    },
    spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'c', image: 'i' }], volumes: opts.volumes },
    status: {
      phase: opts.phase ?? 'Running',
      hostIP: nodeName ? '10.0.0.1' : undefined,
      conditions: [{ type: 'Ready', status: opts.ready === false ? 'False' : 'True' }],
    },
  };
}

export const snapshot = (s: Partial<ClusterSnapshot>): ClusterSnapshot => ({
  nodes: [],
  pods: [],
  deployments: [],
  replicaSets: [],
  daemonSets: [],
  persistentVolumeClaims: [],
  persistentVolumes: [],
  volumeAttachments: [],
  ...s,
});
