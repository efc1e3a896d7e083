// The simulated host as the workload cluster sees it: a Node rendered from the host's state (pure functions).
import { createHash } from 'node:crypto';
import { formatTime, type KubeObject } from '@capi/apimachinery';
import type { InMemoryMachineSpec } from '../api/types';
import {
  APPLIED_SPEC_ANNOTATION,
  HOST_FILES_ANNOTATION,
  HOSTNAME_LABEL,
  NODE_ROLE_CONTROL_PLANE_LABEL,
} from '../api/constants';
import type { HostFiles } from './files';

/** The simulated host's Node name for a Machine: the Machine's name. */
export const nodeNameFor = (machineName: string): string => machineName;

/** The InMemoryMachine spec fields a host "runs with" (what an in-place update changes). */
export type AppliedHostSpec = Pick<InMemoryMachineSpec, 'image' | 'resources' | 'backend'>;

export interface HostState {
  nodeName: string;
  providerID: string;
  controlPlane: boolean;
  /** Kubelet version (the Machine's spec.version). */
  kubeletVersion?: string;
  spec: AppliedHostSpec;
  /** Files written by bootstrap and in-place updates (see ./files). */
  files: HostFiles;
  ready: boolean;
  /** Why the kubelet is not ready (when `ready` is false). */
  notReadyMessage?: string;
}

export const DEFAULT_CPU = 2;
export const DEFAULT_MEMORY_MIB = 4096;

export function appliedHostSpec(spec: InMemoryMachineSpec | undefined): AppliedHostSpec {
  const out: AppliedHostSpec = {};
  if (spec?.image !== undefined) out.image = spec.image;
  if (spec?.resources !== undefined) out.resources = structuredClone(spec.resources);
  if (spec?.backend !== undefined) out.backend = structuredClone(spec.backend);
  return out;
}

/** A stable fake InternalIP in 10.0.0.0/8 derived from the provider ID. */
export function internalIpFor(providerID: string): string {
  const h = createHash('sha256').update(providerID).digest();
  return `10.${h[0]}.${h[1]}.${(h[2] % 254) + 1}`;
}

/** Node metadata + spec (the apply intent for the main resource). */
export function nodeObject(state: HostState): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: state.nodeName,
      labels: {
        [HOSTNAME_LABEL]: state.nodeName,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        ...(state.controlPlane ? { [NODE_ROLE_CONTROL_PLANE_LABEL]: '' } : {}),
      },
      annotations: {
        [APPLIED_SPEC_ANNOTATION]: JSON.stringify(state.spec),
        [HOST_FILES_ANNOTATION]: JSON.stringify(state.files),
      },
    },
    // kubeadm init/join registers a control-plane Node with its NoSchedule taint (upstream
    // test/infrastructure/docker/reconcilers/backends/inmemory/inmemorymachine_backend.go does too): KCP's
    // NodeKubeadmLabelsAndTaintsSet condition checks for it.
    spec: {
      providerID: state.providerID,
      ...(state.controlPlane ? { taints: [{ key: NODE_ROLE_CONTROL_PLANE_LABEL, effect: 'NoSchedule' }] } : {}),
    },
  };
}

interface NodeCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastHeartbeatTime?: string;
  lastTransitionTime?: string;
}

const conditionsOf = (node: KubeObject | undefined): NodeCondition[] =>
  (node?.status as { conditions?: NodeCondition[] } | undefined)?.conditions ?? [];

/**
 * Node status (the apply intent for the status subresource). `previous` keeps lastTransitionTime of conditions whose
 * status did not change, as the kubelet does.
 */
export function nodeStatus(state: HostState, now: Date, previous?: KubeObject): KubeObject {
  const time = formatTime(now);
  const cond = (type: string, status: string, reason: string, message: string): NodeCondition => {
    const prev = conditionsOf(previous).find((c) => c.type === type);
    return {
      type,
      status,
      reason,
      message,
      lastHeartbeatTime: time,
      lastTransitionTime: prev && prev.status === status && prev.lastTransitionTime ? prev.lastTransitionTime : time,
    };
  };
  const cpu = String(state.spec.resources?.cpu ?? DEFAULT_CPU);
  const memory = `${state.spec.resources?.memoryMiB ?? DEFAULT_MEMORY_MIB}Mi`;
  const capacity = { cpu, memory, pods: '110', 'ephemeral-storage': '100Gi' };
  const id = createHash('sha256').update(state.providerID).digest('hex');
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: state.nodeName },
    status: {
      conditions: [
        cond('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
        cond('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
        cond('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
        state.ready
          ? cond('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status')
          : cond('Ready', 'False', 'KubeletNotReady', state.notReadyMessage ?? 'kubelet is not ready'),
      ],
      addresses: [
        { type: 'InternalIP', address: internalIpFor(state.providerID) },
        { type: 'Hostname', address: state.nodeName },
      ],
      capacity,
      allocatable: capacity,
      nodeInfo: {
        machineID: id.slice(0, 32),
        systemUUID: `${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20, 32)}`,
        bootID: id.slice(32, 64),
        kernelVersion: '6.8.0-in-memory',
        osImage: state.spec.image ?? 'in-memory-os',
        containerRuntimeVersion: 'containerd://1.7.0',
        kubeletVersion: state.kubeletVersion ?? '',
        kubeProxyVersion: state.kubeletVersion ?? '',
        operatingSystem: 'linux',
        architecture: 'amd64',
      },
    },
  };
}

/** The kubelet version a Node reports. */
export const kubeletVersionOf = (node: KubeObject): string | undefined =>
  (node.status as { nodeInfo?: { kubeletVersion?: string } } | undefined)?.nodeInfo?.kubeletVersion;

/** The applied spec recorded on a Node (empty when absent or unreadable). */
export function appliedSpecOf(node: KubeObject): AppliedHostSpec {
  const raw = node.metadata.annotations?.[APPLIED_SPEC_ANNOTATION];
  if (!raw) return {};
  try {
    return JSON.parse(raw) as AppliedHostSpec;
  } catch {
    return {};
  }
}

export const isNodeReady = (node: KubeObject): boolean =>
  conditionsOf(node).some((c) => c.type === 'Ready' && c.status === 'True');
