// The UpToDate condition KCP writes on its Machines (upstream kubeadmcontrolplane_controller.go
// reconcileMachineUpToDateCondition) and the selector of status.selector.
import {
  CLUSTER_NAME_LABEL,
  MACHINE_CONTROL_PLANE_LABEL,
  MACHINE_UP_TO_DATE_UPDATING_REASON,
  NOT_UP_TO_DATE_REASON,
  UP_TO_DATE_CONDITION,
  UP_TO_DATE_REASON,
  UPDATING_CONDITION,
  getCondition,
  isUpdateInProgress,
  type ConditionInput,
  type Machine,
} from '@capi/api';

/**
 * UpToDate on a Machine, in upstream's order: not up-to-date first, then an in-place update in progress (the message
 * mirrors the Updating condition's), then a kubelet version lagging spec.version (Updating), then up-to-date.
 * RollingOut reads these messages back (setRollingOutCondition), so their "* " format matters.
 */
export function machineUpToDateCondition(
  machine: Machine,
  upToDate: boolean,
  conditionMessages: readonly string[],
): ConditionInput {
  if (!upToDate) {
    return {
      type: UP_TO_DATE_CONDITION,
      status: 'False',
      reason: NOT_UP_TO_DATE_REASON,
      message: conditionMessages.map((m) => `* ${m}`).join('\n'),
    };
  }
  if (isUpdateInProgress(machine)) {
    const updating = getCondition(machine, UPDATING_CONDITION);
    const message =
      updating?.status === 'True' && updating.message ? `* ${updating.message}` : '* In-place update in progress';
    return { type: UP_TO_DATE_CONDITION, status: 'False', reason: MACHINE_UP_TO_DATE_UPDATING_REASON, message };
  }
  // The spec is up-to-date but the kubelet still runs another version (e.g. an upgrade in progress on the host).
  const kubeletVersion = (machine.status?.nodeInfo as { kubeletVersion?: string } | undefined)?.kubeletVersion;
  if (kubeletVersion && kubeletVersion !== machine.spec.version) {
    return {
      type: UP_TO_DATE_CONDITION,
      status: 'False',
      reason: MACHINE_UP_TO_DATE_UPDATING_REASON,
      message: `* Node.status.nodeInfo.kubeletVersion ${kubeletVersion}, ${machine.spec.version ?? ''} required`,
    };
  }
  return { type: UP_TO_DATE_CONDITION, status: 'True', reason: UP_TO_DATE_REASON };
}

/** The selector of status.selector (scale subresource): the KCP's control-plane Machines. */
export const controlPlaneSelector = (clusterName: string): string =>
  `${CLUSTER_NAME_LABEL}=${clusterName},${MACHINE_CONTROL_PLANE_LABEL}`;
