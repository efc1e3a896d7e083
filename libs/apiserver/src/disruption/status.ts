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

/**
 * The status of `pdb` from the Pods its selector matches (`pods`), at `now`. expectedPods: kube takes it from the scale
 * of the Pods' controllers for maxUnavailable and percentage minAvailable; here it is the number of matching Pods
 * (the value kube uses for an integer minAvailable) — the same whenever every controller has all its Pods.
 */
export function computePdbStatus(pdb: KubeObject, pods: KubeObject[], now: Date): PdbStatusResult {
  const spec: Obj = (pdb.spec as Obj) ?? {};
  const old: Obj = (pdb.status as Obj) ?? {};
  const expectedPods = pods.length;
  let desiredHealthy = 0;
  if (present(spec.maxUnavailable))
    desiredHealthy = Math.max(0, expectedPods - scaledValue(spec.maxUnavailable, expectedPods));
  else if (present(spec.minAvailable)) desiredHealthy = scaledValue(spec.minAvailable, expectedPods);

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
