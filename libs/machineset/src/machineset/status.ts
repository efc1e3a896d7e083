// MachineSet status (upstream machineset_controller_status.go), pure. The Machines' UpToDate condition is written by
// the Machine controller (@capi/machine), as upstream.
import { formatLabelSelector, type PassiveClock } from '@capi/apimachinery';
import {
  AVAILABLE_CONDITION,
  DISABLE_MACHINE_CREATE_ANNOTATION,
  MACHINES_READY_CONDITION,
  MACHINES_UP_TO_DATE_CONDITION,
  PENDING_ACKNOWLEDGE_MOVE_ANNOTATION,
  READY_CONDITION,
  SCALING_DOWN_CONDITION,
  SCALING_UP_CONDITION,
  UP_TO_DATE_CONDITION,
  aggregate,
  isTrue,
  isUpdateInProgress,
  setCondition,
  type Condition,
  type ConditionInput,
  type Machine,
  type MachineSet,
  type MachineSetStatus,
} from '@capi/api';
import { remediatingCondition } from './remediation';

/** Available for rollout math: Available=True and not updating in place (an updating Machine is unavailable). */
export function isMachineAvailable(m: Machine): boolean {
  return isTrue(m, AVAILABLE_CONDITION) && !isUpdateInProgress(m);
}

/** ScalingUp compares spec.replicas with every Machine; ScalingDown leaves out moved ones still pending acknowledgement (upstream). */
function scalingConditions(ms: MachineSet, machines: readonly Machine[]): ConditionInput[] {
  const desired = ms.spec.replicas ?? 0;
  const current = machines.length;
  const removable = machines.filter(
    (m) => m.metadata.annotations?.[PENDING_ACKNOWLEDGE_MOVE_ANNOTATION] === undefined,
  ).length;
  const up: ConditionInput =
    desired > current
      ? {
          type: SCALING_UP_CONDITION,
          status: 'True',
          reason: 'ScalingUp',
          message:
            `Scaling up from ${current} to ${desired} replicas` +
            (ms.metadata.annotations?.[DISABLE_MACHINE_CREATE_ANNOTATION] === 'true'
              ? ' is blocked because the MachineSet has the disable-machine-create annotation'
              : ''),
        }
      : { type: SCALING_UP_CONDITION, status: 'False', reason: 'NotScalingUp' };
  const down: ConditionInput =
    desired < removable
      ? {
          type: SCALING_DOWN_CONDITION,
          status: 'True',
          reason: 'ScalingDown',
          message: `Scaling down from ${removable} to ${desired} replicas`,
        }
      : { type: SCALING_DOWN_CONDITION, status: 'False', reason: 'NotScalingDown' };
  return [up, down];
}

/**
 * Status of an MS over every Machine it controls (upstream setReplicas): replicas counts them all, moved ones not yet
 * acknowledged included; a Machine updating in place counts as neither ready, available nor up to date.
 */
export function computeMachineSetStatus(
  ms: MachineSet,
  counted: readonly Machine[],
  clock: PassiveClock,
): MachineSetStatus {
  const settled = counted.filter((m) => !isUpdateInProgress(m));
  const noReplicas = { status: 'True' as const, reason: 'NoReplicas' };
  const inputs: ConditionInput[] = [
    aggregate(counted, READY_CONDITION, {
      targetType: MACHINES_READY_CONDITION,
      trueReason: 'Ready',
      falseReason: 'NotReady',
      unknownReason: 'ReadyUnknown',
      noObjects: noReplicas,
    }),
    aggregate(counted, UP_TO_DATE_CONDITION, {
      targetType: MACHINES_UP_TO_DATE_CONDITION,
      trueReason: 'UpToDate',
      falseReason: 'NotUpToDate',
      unknownReason: 'UpToDateUnknown',
      noObjects: noReplicas,
    }),
    ...scalingConditions(ms, counted),
    remediatingCondition(counted),
  ];
  let conditions: Condition[] | undefined = ms.status?.conditions;
  for (const input of inputs)
    conditions = setCondition(conditions, { ...input, observedGeneration: ms.metadata.generation }, clock);
  return {
    ...(ms.status ?? {}),
    conditions,
    selector: formatLabelSelector(ms.spec.selector) || undefined,
    replicas: counted.length,
    readyReplicas: settled.filter((m) => isTrue(m, READY_CONDITION)).length,
    availableReplicas: settled.filter(isMachineAvailable).length,
    upToDateReplicas: settled.filter((m) => isTrue(m, UP_TO_DATE_CONDITION)).length,
    ...(ms.metadata.generation ? { observedGeneration: ms.metadata.generation } : {}),
  };
}
