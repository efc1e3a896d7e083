// KubeadmControlPlane deletion (upstream kubeadmcontrolplane_controller.go reconcileDelete, objectsPendingDeleteNames;
// status.go setDeletingCondition, aggregateStaleMachines): the control plane goes last, once no worker Machine of the
// Cluster is left; then all its Machines are deleted at once and the Deleting condition says what is left. Pure
// decisions; the reconciler reads and writes.
import {
  DELETING_CONDITION,
  drainDelayReasons,
  getCondition,
  isStaleDeletion,
  MACHINE_CONTROL_PLANE_LABEL,
  type ConditionInput,
  type KubeadmControlPlane,
  type Machine,
} from '@capi/api';
import { listToString } from '@capi/apimachinery';

export const KCP_NOT_DELETING_REASON = 'NotDeleting';
export const KCP_DELETING_WAITING_FOR_WORKERS_DELETION_REASON = 'WaitingForWorkersDeletion';
export const KCP_DELETING_WAITING_FOR_MACHINE_DELETION_REASON = 'WaitingForMachineDeletion';
export const KCP_DELETING_DELETION_COMPLETED_REASON = 'DeletionCompleted';
export const KCP_DELETING_INTERNAL_ERROR_REASON = 'InternalError';

export interface KcpDeleting {
  reason: string;
  message?: string;
}

/** The Cluster's Machines that are not control-plane Machines, as upstream names them ("Machines: w1, w2, ..."). */
export function objectsPendingDeleteNames(allMachines: readonly Machine[]): string[] {
  const workers = allMachines
    .filter((m) => !(MACHINE_CONTROL_PLANE_LABEL in (m.metadata.labels ?? {})))
    .map((m) => m.metadata.name ?? '')
    .sort();
  return workers.length > 0 ? [`Machines: ${listToString(workers, 5)}`] : [];
}

export type KcpDeletionDecision =
  | { type: 'done'; deleting: KcpDeleting }
  | { type: 'waitForWorkers'; deleting: KcpDeleting }
  | { type: 'deleteMachines'; deleting: KcpDeleting };

/**
 * What a deleting KCP does next: nothing left → done (the finalizer goes); worker Machines of the Cluster left → wait
 * for them; else delete the control-plane Machines (those not yet deleting) and wait for them.
 */
export function decideKcpDeletion(input: {
  controlPlaneMachines: readonly Machine[];
  /** Every Machine of the Cluster (upstream GetMachinesForCluster). */
  allMachines: readonly Machine[];
  nowMs: number;
}): KcpDeletionDecision {
  const { controlPlaneMachines: machines, allMachines, nowMs } = input;
  if (machines.length === 0)
    return {
      type: 'done',
      deleting: { reason: KCP_DELETING_DELETION_COMPLETED_REASON, message: 'Deletion completed' },
    };
  if (allMachines.length !== machines.length) {
    const names = objectsPendingDeleteNames(allMachines).map((n) => `* ${n}`);
    return {
      type: 'waitForWorkers',
      deleting: {
        reason: KCP_DELETING_WAITING_FOR_WORKERS_DELETION_REASON,
        message: `KubeadmControlPlane deletion blocked because following objects still exist:\n${names.join('\n')}`,
      },
    };
  }
  let message = `Deleting ${machines.length} Machine${machines.length === 1 ? '' : 's'}`;
  const stale = aggregateStaleMachines(machines, nowMs);
  if (stale) message += ` and ${stale}`;
  return { type: 'deleteMachines', deleting: { reason: KCP_DELETING_WAITING_FOR_MACHINE_DELETION_REASON, message } };
}

/** "Machines m1, m2 are in deletion since more than 15m, delay likely due to PodDisruptionBudgets"; '' if none. */
export function aggregateStaleMachines(machines: readonly Machine[], nowMs: number): string {
  const stale = machines.filter((m) => isStaleDeletion(m.metadata.deletionTimestamp, nowMs));
  if (stale.length === 0) return '';
  const delays = new Set<string>();
  for (const m of stale) {
    const deleting = getCondition(m, DELETING_CONDITION);
    for (const d of drainDelayReasons(deleting, m.status?.deletion?.nodeDrainStartTime, nowMs)) delays.add(d);
  }
  const names = stale.map((m) => m.metadata.name ?? '').sort();
  let message = `Machine${names.length > 1 ? 's' : ''} ${listToString(names, 3)} ${names.length === 1 ? 'is' : 'are'} in deletion since more than 15m`;
  const order = ['PodDisruptionBudgets', 'Pods not terminating', 'Pod eviction errors', 'Pods not completed yet'];
  const reasons = order.filter((r) => delays.has(r));
  if (reasons.length > 0) message += `, delay likely due to ${reasons.join(', ')}`;
  return message;
}

/** The KCP's Deleting condition (upstream setDeletingCondition). */
export function kcpDeletingCondition(kcp: KubeadmControlPlane, deleting: KcpDeleting | undefined): ConditionInput {
  if (!kcp.metadata.deletionTimestamp)
    return { type: DELETING_CONDITION, status: 'False', reason: KCP_NOT_DELETING_REASON };
  return { type: DELETING_CONDITION, status: 'True', reason: deleting?.reason ?? '', message: deleting?.message };
}
