// MachineSet status (upstream machineset_controller_status.go), pure. The Machines' UpToDate condition is written by
// the Machine controller (@capi/machine), as upstream.
import {
  AVAILABLE_CONDITION,
  DISABLE_MACHINE_CREATE_ANNOTATION,
  MACHINES_READY_CONDITION,
  MACHINES_UP_TO_DATE_CONDITION,
  READY_CONDITION,
  SCALING_DOWN_CONDITION,
  SCALING_UP_CONDITION,
  UP_TO_DATE_CONDITION,
  aggregate,
  formatLabelSelector,
  isTrue,
  isUpdateInProgress,
  setCondition,
  type Clock,
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

function scalingConditions(ms: MachineSet, current: number): ConditionInput[] {
  const desired = ms.spec.replicas ?? 0;
  const up: ConditionInput =
    desired > current
      ? {
          type: SCALING_UP_CONDITION,
          status: 'True',
          reason: 'ScalingUp',
          message:
            `Scaling up from ${current} to ${desired} replicas` +
            (ms.metadata.annotations?.[DISABLE_MACHINE_CREATE_ANNOTATION] === 'true' ? ' is blocked because the MachineSet has the disable-machine-create annotation' : ''),
        }
      : { type: SCALING_UP_CONDITION, status: 'False', reason: 'NotScalingUp' };
  const down: ConditionInput =
    desired < current
      ? { type: SCALING_DOWN_CONDITION, status: 'True', reason: 'ScalingDown', message: `Scaling down from ${current} to ${desired} replicas` }
      : { type: SCALING_DOWN_CONDITION, status: 'False', reason: 'NotScalingDown' };
  return [up, down];
}

/** Status of an MS over the Machines it counts (moved, unacknowledged Machines are not passed in). */
export function computeMachineSetStatus(ms: MachineSet, counted: readonly Machine[], clock: Clock): MachineSetStatus {
  const noReplicas = { status: 'True' as const, reason: 'NoReplicas' };
  const inputs: ConditionInput[] = [
    aggregate(counted, READY_CONDITION, {
      targetType: MACHINES_READY_CONDITION, trueReason: 'Ready', falseReason: 'NotReady', unknownReason: 'ReadyUnknown', noObjects: noReplicas,
    }),
    aggregate(counted, UP_TO_DATE_CONDITION, {
      targetType: MACHINES_UP_TO_DATE_CONDITION, trueReason: 'UpToDate', falseReason: 'NotUpToDate', unknownReason: 'UpToDateUnknown', noObjects: noReplicas,
    }),
    ...scalingConditions(ms, counted.length),
    remediatingCondition(counted),
  ];
  let conditions: Condition[] | undefined = ms.status?.conditions;
  for (const input of inputs) conditions = setCondition(conditions, { ...input, observedGeneration: ms.metadata.generation }, clock);
  return {
    ...(ms.status ?? {}),
    conditions,
    selector: formatLabelSelector(ms.spec.selector) || undefined,
    replicas: counted.length,
    readyReplicas: counted.filter((m) => isTrue(m, READY_CONDITION)).length,
    availableReplicas: counted.filter(isMachineAvailable).length,
    upToDateReplicas: counted.filter((m) => isTrue(m, UP_TO_DATE_CONDITION)).length,
    ...(ms.metadata.generation ? { observedGeneration: ms.metadata.generation } : {}),
  };
}
