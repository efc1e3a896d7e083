// The simulated kubelets and the Pod garbage collector (pure). A kubelet runs the Pods bound to its Node (Running,
// Ready while the Node is: kube's node lifecycle controller marks Pods of a not-ready Node not ready,
// pkg/controller/util/node MarkPodsNotReady), and finishes a terminating Pod after its simulated shutdown with the
// final delete (gracePeriodSeconds=0: pkg/kubelet/status/status_manager.go). Pods bound to a Node that no longer
// exists are deleted at once (pkg/controller/podgc gcOrphaned; kube waits a 40 s quarantine first). Mirror Pods are
// written by host/control-plane.ts and left alone while their Node exists.
import { createHash } from 'node:crypto';
import { formatTime, type KubeObject } from '@capi/apimachinery';
import { isReadyNode } from './scheduling';
import {
  isMirrorPod,
  isPodReady,
  isTerminal,
  nodeNameOf,
  podPhase,
  podRef,
  type ClusterSnapshot,
  type SimAction,
  type SimPlan,
} from './types';

/** kube's default terminationGracePeriodSeconds. */
const DEFAULT_GRACE_SECONDS = 30;

/**
 * When a terminating Pod's simulated shutdown ends: `seenAt` (when its kubelet first saw it terminating; the
 * deletionTimestamp has only seconds) plus min(shutdown, its grace period).
 */
export function shutdownEndsAt(pod: KubeObject, seenAt: number, shutdownMs: number): number {
  const grace =
    pod.metadata.deletionGracePeriodSeconds ??
    (pod.spec as { terminationGracePeriodSeconds?: number } | undefined)?.terminationGracePeriodSeconds ??
    DEFAULT_GRACE_SECONDS;
  return seenAt + Math.min(shutdownMs, grace * 1000);
}

const hashOf = (s: string) => createHash('sha256').update(s).digest();

/** A stable fake Pod IP in 10.244.0.0/16 (the usual pod CIDR). */
export const podIpFor = (uid: string): string => {
  const h = hashOf(uid);
  return `10.244.${h[0]}.${(h[1] % 254) + 1}`;
};

const hostIpOf = (node: KubeObject): string | undefined =>
  (node.status as { addresses?: { type: string; address: string }[] } | undefined)?.addresses?.find(
    (a) => a.type === 'InternalIP',
  )?.address;

/** The status a kubelet reports for a running Pod on `node`. */
export function runningPodStatus(pod: KubeObject, node: KubeObject, now: Date): Record<string, unknown> {
  const ready = isReadyNode(node);
  const time = formatTime(now);
  const prev = (pod.status ?? {}) as {
    startTime?: string;
    conditions?: { type: string; status: string; lastTransitionTime?: string }[];
  };
  const cond = (type: string, status: boolean) => {
    const s = status ? 'True' : 'False';
    const old = prev.conditions?.find((c) => c.type === type);
    return {
      type,
      status: s,
      lastTransitionTime: old?.status === s && old.lastTransitionTime ? old.lastTransitionTime : time,
    };
  };
  const startTime = prev.startTime ?? time;
  const containers = (pod.spec as { containers?: { name: string; image: string }[] } | undefined)?.containers ?? [];
  return {
    phase: 'Running',
    conditions: [
      cond('PodReadyToStartContainers', true),
      cond('Initialized', true),
      cond('Ready', ready),
      cond('ContainersReady', ready),
      cond('PodScheduled', true),
    ],
    hostIP: hostIpOf(node),
    podIP: podIpFor(pod.metadata.uid ?? pod.metadata.name!),
    startTime,
    containerStatuses: containers.map((c) => ({
      name: c.name,
      image: c.image,
      imageID: '',
      ready,
      restartCount: 0,
      started: true,
      state: { running: { startedAt: startTime } },
    })),
  };
}

export interface KubeletPlan extends SimPlan {
  /** Pod uid → when a kubelet first saw it terminating (carried to the next pass). */
  terminatingSince: Map<string, number>;
}

export function planKubelets(
  s: ClusterSnapshot,
  now: number,
  terminatingSince: ReadonlyMap<string, number>,
  shutdownMs: number,
): KubeletPlan {
  const nodes = new Map(s.nodes.map((n) => [n.metadata.name!, n]));
  const actions: SimAction[] = [];
  const seen = new Map<string, number>();
  let wakeAt: number | undefined;
  for (const pod of s.pods) {
    const nodeName = nodeNameOf(pod);
    // Not bound: no kubelet runs it.
    if (!nodeName) continue;
    const node = nodes.get(nodeName);
    if (!node) {
      actions.push({ op: 'delete', ref: podRef(pod), uid: pod.metadata.uid, force: true });
      continue;
    }
    if (pod.metadata.deletionTimestamp) {
      // A mirror Pod's deletion is the host's (host/nodes.ts); the kubelet would recreate it.
      if (isMirrorPod(pod)) continue;
      const since = terminatingSince.get(pod.metadata.uid!) ?? now;
      const end = shutdownEndsAt(pod, since, shutdownMs);
      if (now >= end) actions.push({ op: 'delete', ref: podRef(pod), uid: pod.metadata.uid, force: true });
      else {
        seen.set(pod.metadata.uid!, since);
        wakeAt = Math.min(wakeAt ?? end, end);
      }
      continue;
    }
    if (isMirrorPod(pod) || isTerminal(pod)) continue;
    const running = podPhase(pod) === 'Running' && (pod.status as { hostIP?: string } | undefined)?.hostIP;
    if (running && isPodReady(pod) === isReadyNode(node)) continue;
    actions.push({ op: 'status', ref: podRef(pod), status: runningPodStatus(pod, node, new Date(now)) });
  }
  return { actions, wakeAt, terminatingSince: seen };
}
