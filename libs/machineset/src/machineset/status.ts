// MachineSet status and the Machine UpToDate condition it owns (upstream machineset_controller_status.go), pure.
import {
  AVAILABLE_CONDITION,
  DISABLE_MACHINE_CREATE_ANNOTATION,
  MACHINES_READY_CONDITION,
  MACHINES_UP_TO_DATE_CONDITION,
  MACHINE_UP_TO_DATE_UPDATING_REASON,
  NOT_UP_TO_DATE_REASON,
  PENDING_ACKNOWLEDGE_MOVE_ANNOTATION,
  READY_CONDITION,
  SCALING_DOWN_CONDITION,
  SCALING_UP_CONDITION,
  UP_TO_DATE_CONDITION,
  UP_TO_DATE_REASON,
  aggregate,
  formatLabelSelector,
  isTrue,
  isUpdateInProgress,
  setCondition,
  type Clock,
  type Condition,
  type ConditionInput,
  type Machine,
  type MachineDeployment,
  type MachineSet,
  type MachineSetStatus,
} from '@capi/api';
import { machineTemplateUpToDate, type MachineTemplateSpecLike } from '../rollout';
import { remediatingCondition } from './remediation';

/** Available for rollout math: Available=True and not updating in place (an updating Machine is unavailable). */
export function isMachineAvailable(m: Machine): boolean {
  return isTrue(m, AVAILABLE_CONDITION) && !isUpdateInProgress(m);
}

/**
 * The UpToDate condition a MachineDeployment-owned MS writes on its Machines: compared against the MD template
 * (the MS template stands for the Machine, as upstream). Updating in place wins: False/Updating.
 * Undefined for stand-alone MachineSets (they leave the condition to whoever manages the Machines).
 */
export function machineUpToDateCondition(ms: MachineSet, md: MachineDeployment | undefined, machine: Machine, now: Date): ConditionInput | undefined {
  if (!md) return undefined;
  if (isUpdateInProgress(machine)) {
    return { type: UP_TO_DATE_CONDITION, status: 'False', reason: MACHINE_UP_TO_DATE_UPDATING_REASON, message: '* In-place update in progress' };
  }
  const { upToDate, result } = machineTemplateUpToDate(ms.spec.template as MachineTemplateSpecLike, md.spec.template as MachineTemplateSpecLike);
  const messages = [...result.logMessages];
  let ok = upToDate;
  const after = md.spec.rollout?.after ? Date.parse(md.spec.rollout.after) : undefined;
  const created = ms.metadata.creationTimestamp ? Date.parse(ms.metadata.creationTimestamp) : undefined;
  if (after !== undefined && after < now.getTime() && !(created !== undefined && created > after)) {
    ok = false;
    messages.push('MachineDeployment spec.rolloutAfter expired');
  }
  if (!ok) {
    return { type: UP_TO_DATE_CONDITION, status: 'False', reason: NOT_UP_TO_DATE_REASON, message: messages.map((m) => `* ${m}`).join('\n') };
  }
  return { type: UP_TO_DATE_CONDITION, status: 'True', reason: UP_TO_DATE_REASON };
}

/** ScalingUp compares spec.replicas with every Machine; ScalingDown leaves out moved ones still pending acknowledgement (upstream). */
function scalingConditions(ms: MachineSet, machines: readonly Machine[]): ConditionInput[] {
  const desired = ms.spec.replicas ?? 0;
  const current = machines.length;
  const removable = machines.filter((m) => m.metadata.annotations?.[PENDING_ACKNOWLEDGE_MOVE_ANNOTATION] === undefined).length;
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
    desired < removable
      ? { type: SCALING_DOWN_CONDITION, status: 'True', reason: 'ScalingDown', message: `Scaling down from ${removable} to ${desired} replicas` }
      : { type: SCALING_DOWN_CONDITION, status: 'False', reason: 'NotScalingDown' };
  return [up, down];
}

/**
 * Status of an MS over every Machine it controls (upstream setReplicas): replicas counts them all, moved ones not yet
 * acknowledged included; a Machine updating in place counts as neither ready, available nor up to date.
 */
export function computeMachineSetStatus(ms: MachineSet, counted: readonly Machine[], clock: Clock): MachineSetStatus {
  const settled = counted.filter((m) => !isUpdateInProgress(m));
  const noReplicas = { status: 'True' as const, reason: 'NoReplicas' };
  const inputs: ConditionInput[] = [
    aggregate(counted, READY_CONDITION, {
      targetType: MACHINES_READY_CONDITION, trueReason: 'Ready', falseReason: 'NotReady', unknownReason: 'ReadyUnknown', noObjects: noReplicas,
    }),
    aggregate(counted, UP_TO_DATE_CONDITION, {
      targetType: MACHINES_UP_TO_DATE_CONDITION, trueReason: 'UpToDate', falseReason: 'NotUpToDate', unknownReason: 'UpToDateUnknown', noObjects: noReplicas,
    }),
    ...scalingConditions(ms, counted),
    remediatingCondition(counted),
  ];
  let conditions: Condition[] | undefined = ms.status?.conditions;
  for (const input of inputs) conditions = setCondition(conditions, { ...input, observedGeneration: ms.metadata.generation }, clock);
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
