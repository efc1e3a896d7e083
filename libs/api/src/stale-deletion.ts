// How a Machine whose deletion takes long is reported (upstream core/reconcilers/machine/machine_controller_status.go
// calculateDeletingConditionForSummary and controlplane/kubeadm/.../status.go aggregateStaleMachines): after 15
// minutes the deletion is "stale"; after 5 minutes of drain, the Deleting message tells what likely holds it up.
import type { Condition } from './schema/meta';
import { MACHINE_DELETING_DRAINING_NODE_REASON } from './deletion-hooks';

const MINUTE = 60_000;

/** Deleting for more than 15 minutes. */
export function isStaleDeletion(deletionTimestamp: string | undefined, nowMs: number): boolean {
  return !!deletionTimestamp && nowMs - Date.parse(deletionTimestamp) > 15 * MINUTE;
}

const DRAIN_DELAYS: readonly [needle: string, label: string][] = [
  ["cannot evict pod as it would violate the pod's disruption budget.", 'PodDisruptionBudgets'],
  ['deletionTimestamp set, but still not removed from the Node', 'Pods not terminating'],
  ['failed to evict Pod', 'Pod eviction errors'],
  ['waiting for completion', 'Pods not completed yet'],
];

/**
 * What likely delays a drain, in upstream's order: read from the Deleting condition's message once the Node has been
 * draining (reason DrainingNode) for more than 5 minutes; empty otherwise.
 */
export function drainDelayReasons(
  deleting: Condition | undefined,
  nodeDrainStartTime: string | undefined,
  nowMs: number,
): string[] {
  if (deleting?.status !== 'True' || deleting.reason !== MACHINE_DELETING_DRAINING_NODE_REASON) return [];
  if (!nodeDrainStartTime || !(nowMs - Date.parse(nodeDrainStartTime) > 5 * MINUTE)) return [];
  const text = deleting.message ?? '';
  return DRAIN_DELAYS.filter(([needle]) => text.includes(needle)).map(([, label]) => label);
}
