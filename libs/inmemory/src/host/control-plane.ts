// The control-plane side of a simulated host (pure): the kubeadm static Pods (kube-apiserver, kube-controller-manager,
// kube-scheduler, etcd) the kubelet would mirror into kube-system, and the host's etcd member. The embedded API
// server does not serve Pods and there is no etcd to ask, so both are published as ConfigMaps (@capi/api
// simulated-control-plane), which KCP reads for its health conditions and preflight checks.
import { createHash } from 'node:crypto';
import {
  SIMULATED_ETCD_MEMBER_KEY,
  SIMULATED_ETCD_MEMBER_LABEL,
  SIMULATED_NAMESPACE,
  SIMULATED_STATIC_POD_KEY,
  SIMULATED_STATIC_POD_LABEL,
  simulatedEtcdMemberConfigMapName,
  simulatedStaticPodConfigMapName,
  type SimulatedEtcdMember,
} from '@capi/api';
import { formatTime, type KubeObject } from '@capi/apimachinery';
import type { HostState } from './node';

export const CONTROL_PLANE_COMPONENTS = [
  'kube-apiserver',
  'kube-controller-manager',
  'kube-scheduler',
  'etcd',
] as const;
export type ControlPlaneComponent = (typeof CONTROL_PLANE_COMPONENTS)[number];

export const staticPodNameOf = (component: ControlPlaneComponent, nodeName: string): string =>
  `${component}-${nodeName}`;

/** The mirror Pod of one static Pod: Running, Ready while the host's kubelet is ready. */
export function staticPod(state: HostState, component: ControlPlaneComponent, now: Date): KubeObject {
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
      namespace: SIMULATED_NAMESPACE,
      labels: { component, tier: 'control-plane' },
      annotations: { 'kubernetes.io/config.source': 'file' },
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

/** The etcd member kubeadm creates for a control-plane host: named after the Node, a stable ID. */
export function etcdMemberOf(state: HostState): SimulatedEtcdMember {
  return {
    id: createHash('sha256').update(state.nodeName).digest('hex').slice(0, 16),
    name: state.nodeName,
    alarms: [],
  };
}

export function staticPodConfigMap(pod: KubeObject): KubeObject {
  const component = (pod.metadata.labels ?? {}).component ?? '';
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: simulatedStaticPodConfigMapName(pod.metadata.name ?? ''),
      namespace: SIMULATED_NAMESPACE,
      labels: { [SIMULATED_STATIC_POD_LABEL]: component },
    },
    data: { [SIMULATED_STATIC_POD_KEY]: JSON.stringify(pod) },
  };
}

export function etcdMemberConfigMap(member: SimulatedEtcdMember): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: simulatedEtcdMemberConfigMapName(member.name),
      namespace: SIMULATED_NAMESPACE,
      labels: { [SIMULATED_ETCD_MEMBER_LABEL]: member.name },
    },
    data: { [SIMULATED_ETCD_MEMBER_KEY]: JSON.stringify(member) },
  };
}

/** Everything a control-plane host publishes (nothing for a worker). */
export function controlPlaneObjects(state: HostState, now: Date): KubeObject[] {
  if (!state.controlPlane) return [];
  return [
    ...CONTROL_PLANE_COMPONENTS.map((c) => staticPodConfigMap(staticPod(state, c, now))),
    etcdMemberConfigMap(etcdMemberOf(state)),
  ];
}

/** Names of the ConfigMaps a control-plane host named `nodeName` publishes (to remove them with the host). */
export function controlPlaneObjectNames(nodeName: string): string[] {
  return [
    ...CONTROL_PLANE_COMPONENTS.map((c) => simulatedStaticPodConfigMapName(staticPodNameOf(c, nodeName))),
    simulatedEtcdMemberConfigMapName(nodeName),
  ];
}
