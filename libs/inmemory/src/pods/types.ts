// What the simulated workload cluster's controllers see and do (pure planning in controllers.ts, kubelet.ts,
// volumes.ts; the I/O in simulator.ts).
import type { KubeObject } from '@capi/apimachinery';
import type { ObjectRef } from '@capi/controller-runtime';

/** The workload cluster's objects one simulation pass works from (consistent lists, read at the pass's start). */
export interface ClusterSnapshot {
  nodes: KubeObject[];
  pods: KubeObject[];
  deployments: KubeObject[];
  replicaSets: KubeObject[];
  daemonSets: KubeObject[];
  persistentVolumeClaims: KubeObject[];
  persistentVolumes: KubeObject[];
  volumeAttachments: KubeObject[];
}

/** One write of a simulation pass. */
export type SimAction =
  /** Create (`status`, if given, is written to the status subresource afterwards, as the object's controller would). */
  | { op: 'create'; object: KubeObject; status?: Record<string, unknown> }
  /** JSON merge patch of the status subresource. */
  | { op: 'status'; ref: ObjectRef; status: Record<string, unknown> }
  /** JSON merge patch of the object. */
  | { op: 'patch'; ref: ObjectRef; patch: Record<string, unknown> }
  /** Delete; `force` with gracePeriodSeconds=0 (the kubelet's final delete, the Pod garbage collector's). */
  | { op: 'delete'; ref: ObjectRef; uid?: string; force?: boolean };

export interface SimPlan {
  actions: SimAction[];
  /** When a pass must run again though nothing changes (a shutdown or detach delay ends), ms since epoch. */
  wakeAt?: number;
}

export const podRef = (pod: KubeObject): ObjectRef => ({
  apiVersion: 'v1',
  kind: 'Pod',
  namespace: pod.metadata.namespace,
  name: pod.metadata.name!,
});

/** The controller ownerReference's uid, if any. */
export const controllerUid = (obj: KubeObject): string | undefined =>
  obj.metadata.ownerReferences?.find((o) => o.controller)?.uid;

export const podPhase = (pod: KubeObject): string | undefined => (pod.status as { phase?: string } | undefined)?.phase;

/** Succeeded or Failed: its containers are done (kube's podutil.IsPodTerminal). */
export const isTerminal = (pod: KubeObject): boolean => ['Succeeded', 'Failed'].includes(podPhase(pod) ?? '');

/** Counts toward a controller's replicas: not terminating, not finished (kube's controller.FilterActivePods). */
export const isActive = (pod: KubeObject): boolean => !pod.metadata.deletionTimestamp && !isTerminal(pod);

export const nodeNameOf = (pod: KubeObject): string | undefined =>
  (pod.spec as { nodeName?: string } | undefined)?.nodeName;

export const isPodReady = (pod: KubeObject): boolean =>
  ((pod.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []).some(
    (c) => c.type === 'Ready' && c.status === 'True',
  );

/** A mirror Pod (a static Pod the kubelet reports): host/control-plane.ts keeps those. */
export const isMirrorPod = (pod: KubeObject): boolean =>
  pod.metadata.annotations?.['kubernetes.io/config.mirror'] !== undefined;
