// The outcome of one round of evictions and the Deleting condition message made from it (upstream
// core/reconcilers/machine/drain/drain.go EvictionResult, EvictPods' partitioning, ConditionMessage). Pure.
import { MACHINE_DRAIN_RULE_DRAIN_BEHAVIOR_DRAIN, MACHINE_DRAIN_RULE_DRAIN_BEHAVIOR_WAIT_COMPLETED } from '@capi/api';
import { formatTime, listToString, type Status } from '@capi/apimachinery';
import { isApiError } from '@capi/controller-runtime';
import { podKey, type PodDelete, type PodObject } from './filters';

export interface EvictionResult {
  podsDeletionTimestampSet: PodObject[];
  /** By failure message. */
  podsFailedEviction: Map<string, PodObject[]>;
  podsToTriggerEvictionLater: PodObject[];
  podsToWaitCompletedNow: PodObject[];
  podsToWaitCompletedLater: PodObject[];
  podsNotFound: PodObject[];
  podsIgnored: PodObject[];
}

export const emptyEvictionResult = (): EvictionResult => ({
  podsDeletionTimestampSet: [],
  podsFailedEviction: new Map(),
  podsToTriggerEvictionLater: [],
  podsToWaitCompletedNow: [],
  podsToWaitCompletedLater: [],
  podsNotFound: [],
  podsIgnored: [],
});

/** The Node is drained: every Pod that had to go is gone (not found, ignored Pods aside). */
export const drainCompleted = (r: EvictionResult): boolean =>
  r.podsDeletionTimestampSet.length === 0 &&
  r.podsFailedEviction.size === 0 &&
  r.podsToTriggerEvictionLater.length === 0 &&
  r.podsToWaitCompletedLater.length === 0 &&
  r.podsToWaitCompletedNow.length === 0;

/** util/log ListToString over Pods: `namespace/name` of the first n, then `... (k more)`. */
export const podListToString = (pods: readonly PodObject[], n: number): string => listToString(pods.map(podKey), n);

const PDB_VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget.";
const PDB_VIOLATION_LOWER = "cannot evict pod as it would violate the pod's disruption budget.";

const kindOf = (pods: readonly unknown[]): string => (pods.length > 1 ? 'Pods' : 'Pod');

/** The condition message while the drain is not completed ("" once it is), in upstream's exact words. */
export function conditionMessage(r: EvictionResult, nodeDrainStartTime: string | number): string {
  if (drainCompleted(r)) return '';
  const start = formatTime(
    typeof nodeDrainStartTime === 'string' ? Date.parse(nodeDrainStartTime) : nodeDrainStartTime,
  );
  let msg = `Drain not completed yet (started at ${start}):`;
  if (r.podsDeletionTimestampSet.length > 0) {
    msg += `\n* ${kindOf(r.podsDeletionTimestampSet)} ${podListToString(r.podsDeletionTimestampSet, 3)}: deletionTimestamp set, but still not removed from the Node`;
  }
  if (r.podsFailedEviction.size > 0) {
    const sorted = [...r.podsFailedEviction.keys()].sort();
    const skipped = sorted.slice(5);
    for (const failure of sorted.slice(0, 5)) {
      const pods = r.podsFailedEviction.get(failure)!;
      let text = failure.replaceAll(PDB_VIOLATION, PDB_VIOLATION_LOWER);
      if (!text.startsWith(PDB_VIOLATION_LOWER)) text = `failed to evict Pod, ${text}`;
      msg += `\n* ${kindOf(pods)} ${podListToString(pods, 3)}: ${text}`;
    }
    if (skipped.length > 0) {
      const count = skipped.reduce((n, f) => n + r.podsFailedEviction.get(f)!.length, 0);
      msg += count === 1 ? '\n* 1 Pod with other issues' : `\n* ${count} Pods with other issues`;
    }
  }
  if (r.podsToWaitCompletedNow.length > 0) {
    msg += `\n* ${kindOf(r.podsToWaitCompletedNow)} ${podListToString(r.podsToWaitCompletedNow, 3)}: waiting for completion`;
  }
  if (r.podsToTriggerEvictionLater.length > 0) {
    msg += `\nAfter above Pods have been removed from the Node, the following Pods will be evicted: ${podListToString(r.podsToTriggerEvictionLater, 3)}`;
  }
  if (r.podsToWaitCompletedLater.length > 0) {
    msg += `\nAfter above Pods have been removed from the Node, waiting for the following Pods to complete without eviction: ${podListToString(r.podsToWaitCompletedLater, 3)}`;
  }
  return msg;
}

export interface EvictionPlan {
  /** Drain Pods without deletionTimestamp in the lowest order: evicted in this round. */
  evictNow: PodDelete[];
  evictLater: PodDelete[];
  withDeletionTimestamp: PodDelete[];
  ignored: PodDelete[];
  waitCompletedNow: PodDelete[];
  waitCompletedLater: PodDelete[];
}

/**
 * EvictPods' partitioning: sorted by `namespace/name` (so the result, and the condition, are stable between
 * reconciles); only the lowest drain order among the Pods still to go is evicted (or waited for) now.
 */
export function planEviction(items: readonly PodDelete[]): EvictionPlan {
  const key = (pd: PodDelete) => `${pd.pod.metadata.namespace ?? ''}/${pd.pod.metadata.name ?? ''}`;
  const sorted = [...items].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  let minOrder = 2 ** 31 - 1;
  for (const pd of sorted) {
    const b = pd.status.drainBehavior;
    if (b === MACHINE_DRAIN_RULE_DRAIN_BEHAVIOR_DRAIN || b === MACHINE_DRAIN_RULE_DRAIN_BEHAVIOR_WAIT_COMPLETED)
      minOrder = Math.min(minOrder, pd.status.drainOrder ?? 0);
  }
  const plan: EvictionPlan = {
    evictNow: [],
    evictLater: [],
    withDeletionTimestamp: [],
    ignored: [],
    waitCompletedNow: [],
    waitCompletedLater: [],
  };
  for (const pd of sorted) {
    const now = (pd.status.drainOrder ?? 0) === minOrder;
    if (pd.status.drainBehavior === MACHINE_DRAIN_RULE_DRAIN_BEHAVIOR_DRAIN && !pd.pod.metadata.deletionTimestamp)
      (now ? plan.evictNow : plan.evictLater).push(pd);
    else if (pd.status.drainBehavior === MACHINE_DRAIN_RULE_DRAIN_BEHAVIOR_WAIT_COMPLETED)
      (now ? plan.waitCompletedNow : plan.waitCompletedLater).push(pd);
    else if (pd.status.drainBehavior === MACHINE_DRAIN_RULE_DRAIN_BEHAVIOR_DRAIN) plan.withDeletionTimestamp.push(pd);
    else plan.ignored.push(pd);
  }
  return plan;
}

/** NamespaceTerminatingCause (core/v1). */
const NAMESPACE_TERMINATING_CAUSE = 'NamespaceTerminating';
export const NAMESPACE_TERMINATING_EVICTION_MESSAGE =
  'Cannot evict pod from terminating namespace: unable to create eviction (kube-controller-manager should set deletionTimestamp)';

export type EvictionOutcome = { kind: 'evicted' } | { kind: 'notFound' } | { kind: 'failed'; message: string };

/**
 * What an eviction call's error means: 404 → the Pod is gone; 429 (a PodDisruptionBudget) → the Status message with
 * its causes appended; 403 in a terminating Namespace → upstream's fixed message; anything else → its message.
 */
export function evictionOutcome(err: unknown): EvictionOutcome {
  if (err === undefined) return { kind: 'evicted' };
  if (!isApiError(err)) return { kind: 'failed', message: (err as Error)?.message ?? String(err) };
  const status: Status = err.status ?? {};
  if (err.code === 404 || status.reason === 'NotFound') return { kind: 'notFound' };
  if (err.code === 429 || status.reason === 'TooManyRequests') {
    let message = status.message ?? err.message;
    if (status.details) message = `${message} ${(status.details.causes ?? []).map((c) => c.message ?? '').join(',')}`;
    return { kind: 'failed', message };
  }
  const forbidden = err.code === 403 || status.reason === 'Forbidden';
  if (forbidden && (status.details?.causes ?? []).some((c) => c.reason === NAMESPACE_TERMINATING_CAUSE))
    return { kind: 'failed', message: NAMESPACE_TERMINATING_EVICTION_MESSAGE };
  return { kind: 'failed', message: status.message ?? err.message };
}
