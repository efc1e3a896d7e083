// The status of a PodDisruptionBudget as kube-controller-manager's disruption controller computes it
// (kubernetes pkg/controller/disruption/disruption.go getExpectedPodCount, countHealthyPods, buildDisruptedPodMap,
// updatePdbStatus, failSafe; k8s.io/component-helpers/apps/poddisruptionbudget UpdateDisruptionAllowedCondition),
// as pure functions.
import type { KubeObject } from '@capi/apimachinery';
import { formatTime } from '@capi/apimachinery';

type Obj = Record<string, any>;

/** How long an eviction recorded in status.disruptedPods keeps its Pod out of currentHealthy (DeletionTimeout). */
export const DELETION_TIMEOUT_MS = 2 * 60 * 1000;

export const DISRUPTION_ALLOWED = 'DisruptionAllowed';
export const SUFFICIENT_PODS = 'SufficientPods';
export const INSUFFICIENT_PODS = 'InsufficientPods';
export const SYNC_FAILED = 'SyncFailed';

/** podutil.IsPodReady: the Ready condition is True. */
export function podReady(pod: KubeObject): boolean {
  const conditions: Obj[] = Array.isArray((pod.status as Obj | undefined)?.conditions)
    ? (pod.status as Obj).conditions
    : [];
  return conditions.some((c) => c?.type === 'Ready' && c.status === 'True');
}

/**
 * meta.SetStatusCondition of DisruptionAllowed: True/SufficientPods when disruptions are allowed, False/InsufficientPods
 * otherwise (False/SyncFailed with a message when the status could not be computed); lastTransitionTime moves only
 * when the status changes.
 */
export function disruptionAllowedCondition(status: Obj, now: Date, failure?: string): Obj[] {
  const conditions: Obj[] = Array.isArray(status.conditions) ? status.conditions : [];
  const allowed = !failure && (status.disruptionsAllowed ?? 0) > 0;
  const old = conditions.find((c) => c?.type === DISRUPTION_ALLOWED);
  const value = allowed ? 'True' : 'False';
  const condition: Obj = {
    type: DISRUPTION_ALLOWED,
    status: value,
    ...(status.observedGeneration ? { observedGeneration: status.observedGeneration } : {}),
    lastTransitionTime:
      old && old.status === value && old.lastTransitionTime ? old.lastTransitionTime : formatTime(now),
    reason: failure ? SYNC_FAILED : allowed ? SUFFICIENT_PODS : INSUFFICIENT_PODS,
    message: failure ?? '',
  };
  return old ? conditions.map((c) => (c === old ? condition : c)) : [...conditions, condition];
}

/** intstr.GetScaledValueFromIntOrPercent with roundUp: an int as is, "N%" of total rounded up. */
export function scaledValue(v: number | string, total: number): number {
  if (typeof v === 'number') return v;
  const m = /^([0-9]+)%$/.exec(v);
  if (!m)
    throw new Error(
      `invalid value for IntOrString: invalid value "${v}": strconv.Atoi: parsing "${v}": invalid syntax`,
    );
  return Math.ceil((Number(m[1]) * total) / 100);
}

export interface PdbStatusResult {
  status: Obj;
  /** When an entry of disruptedPods expires and the status must be computed again (epoch ms). */
  recheckAt?: number;
}

const present = (v: unknown): v is number | string => v !== undefined && v !== null;

/** A Pod's controller (metav1.GetControllerOf). */
export interface ControllerRef {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
}
/**
 * The scale (spec.replicas) of a Pod's controller: `null` when no such controller exists (another uid, or none),
 * `undefined` when this server cannot know it (a kind it does not serve); throws when the kind has no scale.
 */
export type ScaleOf = (ref: ControllerRef, namespace: string) => number | null | undefined;

export const controllerOf = (pod: KubeObject): ControllerRef | undefined =>
  (pod.metadata.ownerReferences ?? []).find((r) => r.controller === true) as ControllerRef | undefined;

/**
 * getExpectedScale: the sum of the scales of the Pods' controllers; Pods without a controller are not counted
 * (kube's "unmanaged" Pods). A controller of a kind this server does not serve (ReplicaSet, StatefulSet) counts as
 * many as its matching Pods.
 */
export function expectedScale(pods: KubeObject[], scaleOf: ScaleOf): number {
  const scales = new Map<string, number>();
  const counted = new Map<string, number>();
  for (const pod of pods) {
    const ref = controllerOf(pod);
    if (!ref) continue;
    if (scales.has(ref.uid)) continue;
    const scale = scaleOf(ref, pod.metadata.namespace ?? '');
    if (scale === null) throw new Error(`found no controllers for pod ${JSON.stringify(pod.metadata.name)}`);
    if (scale === undefined) counted.set(ref.uid, (counted.get(ref.uid) ?? 0) + 1);
    else scales.set(ref.uid, scale);
  }
  return [...scales.values(), ...counted.values()].reduce((a, b) => a + b, 0);
}

/**
 * The status of `pdb` from the Pods its selector matches (`pods`), at `now` (getExpectedPodCount): an integer
 * minAvailable expects the matching Pods; maxUnavailable and a percentage minAvailable expect the controllers' scale
 * (expectedScale). Throws when that cannot be known (the caller writes failSafeStatus).
 */
export function computePdbStatus(pdb: KubeObject, pods: KubeObject[], now: Date, scaleOf: ScaleOf): PdbStatusResult {
  const spec: Obj = (pdb.spec as Obj) ?? {};
  const old: Obj = (pdb.status as Obj) ?? {};
  let expectedPods = 0;
  let desiredHealthy = 0;
  if (present(spec.maxUnavailable)) {
    expectedPods = expectedScale(pods, scaleOf);
    desiredHealthy = Math.max(0, expectedPods - scaledValue(spec.maxUnavailable, expectedPods));
  } else if (typeof spec.minAvailable === 'number') {
    expectedPods = pods.length;
    desiredHealthy = spec.minAvailable;
  } else if (present(spec.minAvailable)) {
    expectedPods = expectedScale(pods, scaleOf);
    desiredHealthy = scaledValue(spec.minAvailable, expectedPods);
  }

  // buildDisruptedPodMap: an eviction stays recorded until its Pod is being deleted or DeletionTimeout passed.
  const recorded: Obj = old.disruptedPods ?? {};
  const disruptedPods: Record<string, string> = {};
  let recheckAt: number | undefined;
  for (const pod of pods) {
    if (pod.metadata.deletionTimestamp) continue;
    const at = recorded[pod.metadata.name!];
    if (typeof at !== 'string') continue;
    const expires = Date.parse(at) + DELETION_TIMEOUT_MS;
    if (expires < now.getTime()) continue;
    disruptedPods[pod.metadata.name!] = at;
    if (recheckAt === undefined || expires < recheckAt) recheckAt = expires;
  }
  // countHealthyPods: Ready, not being deleted, not about to be (recorded in disruptedPods).
  const currentHealthy = pods.filter(
    (p) => !p.metadata.deletionTimestamp && disruptedPods[p.metadata.name!] === undefined && podReady(p),
  ).length;
  const disruptionsAllowed = expectedPods <= 0 ? 0 : Math.max(0, currentHealthy - desiredHealthy);
  const status: Obj = {
    observedGeneration: pdb.metadata.generation ?? 0,
    ...(Object.keys(disruptedPods).length ? { disruptedPods } : {}),
    disruptionsAllowed,
    currentHealthy,
    desiredHealthy,
    expectedPods,
  };
  status.conditions = disruptionAllowedCondition({ ...status, conditions: old.conditions }, now);
  return { status, ...(recheckAt !== undefined ? { recheckAt } : {}) };
}

/** failSafe: no disruption allowed, and why, when the status cannot be computed (e.g. an invalid selector). */
export function failSafeStatus(pdb: KubeObject, error: string, now: Date): Obj {
  const status: Obj = { ...((pdb.status as Obj) ?? {}), disruptionsAllowed: 0 };
  status.conditions = disruptionAllowedCondition(status, now, error);
  return status;
}
