// The control-plane side of a simulated host (pure): the kubeadm static Pods (kube-apiserver, kube-controller-manager,
// kube-scheduler, etcd) as the kubelet mirrors them into kube-system (upstream's in-memory backend creates the same
// Pods: reconcileNormalETCD / reconcileNormalAPIServer in
// test/infrastructure/docker/reconcilers/backends/inmemory/inmemorymachine_backend.go). KCP reads them for its health
// conditions and preflight checks; the etcd Pod is where a port-forward reaches the host's etcd member.
import { createHash } from 'node:crypto';
import { formatTime, type KubeObject } from '@capi/apimachinery';
import type { HostState } from './node';

export const KUBE_SYSTEM = 'kube-system';
/** Annotations upstream's in-memory etcd puts on an etcd Pod (pkg/cloud/api/v1alpha1/etcdcluster_annotations.go). */
export const ETCD_CLUSTER_ID_ANNOTATION = 'etcd.inmemory.infrastructure.cluster.x-k8s.io/cluster-id';
export const ETCD_MEMBER_ID_ANNOTATION = 'etcd.inmemory.infrastructure.cluster.x-k8s.io/member-id';

export const CONTROL_PLANE_COMPONENTS = [
  'kube-apiserver',
  'kube-controller-manager',
  'kube-scheduler',
  'etcd',
] as const;
export type ControlPlaneComponent = (typeof CONTROL_PLANE_COMPONENTS)[number];

export const staticPodNameOf = (component: ControlPlaneComponent, nodeName: string): string =>
  `${component}-${nodeName}`;

/** The etcd member a host's etcd Pod serves (its IDs go on the Pod as upstream's annotations). */
export interface EtcdMemberIds {
  clusterID: string;
  memberID: string;
}

/**
 * The mirror Pod of one static Pod: Running, Ready while the host's kubelet is ready; owned by its Node, as the
 * kubelet writes mirror Pods.
 */
export function staticPod(
  state: HostState,
  component: ControlPlaneComponent,
  now: Date,
  opts: { nodeUid?: string; etcd?: EtcdMemberIds } = {},
): KubeObject {
  const time = formatTime(now);
  const ready = state.ready ? 'True' : 'False';
  const cond = (type: string, status: string) => ({ type, status, lastTransitionTime: time });
  const image =
    component === 'etcd'
      ? 'registry.k8s.io/etcd:3.5.15-0'
      : `registry.k8s.io/${component}:${state.kubeletVersion ?? ''}`;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: staticPodNameOf(component, state.nodeName),
      namespace: KUBE_SYSTEM,
      labels: { component, tier: 'control-plane' },
      annotations: {
        'kubernetes.io/config.source': 'file',
        'kubernetes.io/config.mirror': configHash(state.nodeName, component, image),
        ...(component === 'etcd' && opts.etcd
          ? { [ETCD_CLUSTER_ID_ANNOTATION]: opts.etcd.clusterID, [ETCD_MEMBER_ID_ANNOTATION]: opts.etcd.memberID }
          : {}),
      },
      ...(opts.nodeUid
        ? {
            ownerReferences: [
              { apiVersion: 'v1', kind: 'Node', name: state.nodeName, uid: opts.nodeUid, controller: true },
            ],
          }
        : {}),
    },
    spec: { nodeName: state.nodeName, containers: [{ name: component, image }] },
    status: {
      phase: 'Running',
      conditions: [
        cond('PodReadyToStartContainers', 'True'),
        cond('Initialized', 'True'),
        cond('Ready', ready),
        cond('ContainersReady', ready),
        cond('PodScheduled', 'True'),
      ],
      containerStatuses: [
        {
          name: component,
          image,
          ready: state.ready,
          restartCount: 0,
          started: true,
          state: { running: { startedAt: time } },
        },
      ],
    },
  };
}

/** The static Pod manifest's hash the kubelet records on the mirror Pod (kubernetes.io/config.mirror). */
const configHash = (node: string, component: string, image: string): string =>
  createHash('sha256').update(`${node}/${component}/${image}`).digest('hex').slice(0, 32);

/** The mirror Pods of a control-plane host (none for a worker). */
export function mirrorPods(
  state: HostState,
  now: Date,
  opts: { nodeUid?: string; etcd?: EtcdMemberIds } = {},
): KubeObject[] {
  if (!state.controlPlane) return [];
  return CONTROL_PLANE_COMPONENTS.map((c) => staticPod(state, c, now, opts));
}

/** Names of the mirror Pods of a control-plane host named `nodeName` (to remove them with the host). */
export const mirrorPodNames = (nodeName: string): string[] =>
  CONTROL_PLANE_COMPONENTS.map((c) => staticPodNameOf(c, nodeName));
