// MachineDeployment status from its MachineSets and their Machines (upstream machinedeployment_status.go), pure.
import { formatLabelSelector, type PassiveClock } from '@capi/apimachinery';
import {
  AVAILABLE_CONDITION,
  MACHINES_READY_CONDITION,
  MACHINES_UP_TO_DATE_CONDITION,
  READY_CONDITION,
  ROLLING_OUT_CONDITION,
  SCALING_DOWN_CONDITION,
  SCALING_UP_CONDITION,
  UP_TO_DATE_CONDITION,
  aggregate,
  setCondition,
  type Condition,
  type ConditionInput,
  type Machine,
  type MachineDeployment,
  type MachineDeploymentStatus,
  type MachineSet,
} from '@capi/api';
import { ROLLOUT_BLOCKED_CONDITION } from '@capi/inplace';
import { maxUnavailable, type MachineDeploymentLike } from '../rollout';

const sum = (mss: readonly MachineSet[], f: (s: NonNullable<MachineSet['status']>) => number | undefined) =>
  mss.reduce((t, ms) => t + (f(ms.status ?? {}) ?? 0), 0);

export interface MachineDeploymentStatusInput {
  md: MachineDeployment;
  machineSets: readonly MachineSet[];
  /** Machines controlled by those MachineSets. */
  machines: readonly Machine[];
  /** A reconcile error to surface (e.g. the CanUpdateMachineSet extension failed). */
  error?: { reason: string; message: string };
  /** The InPlaceOnly policy's RolloutBlocked condition; undefined: the policy is not set (the condition goes). */
  rolloutBlocked?: ConditionInput;
}

export function computeMachineDeploymentStatus(
  input: MachineDeploymentStatusInput,
  clock: PassiveClock,
): MachineDeploymentStatus {
  const { md, machineSets, machines } = input;
  const desired = md.spec.replicas ?? 0;
  const replicas = sum(machineSets, (s) => s.replicas);
  const available = sum(machineSets, (s) => s.availableReplicas);
  const upToDate = sum(machineSets, (s) => s.upToDateReplicas);
  const minAvailable = Math.max(desired - maxUnavailable(md as unknown as MachineDeploymentLike), 0);
  const noReplicas = { status: 'True' as const, reason: 'NoReplicas' };
  const inputs: ConditionInput[] = [
    available >= minAvailable
      ? { type: AVAILABLE_CONDITION, status: 'True', reason: 'Available' }
      : {
          type: AVAILABLE_CONDITION,
          status: 'False',
          reason: 'NotAvailable',
          message: `${available} available replicas, at least ${minAvailable} required`,
        },
    aggregate(machines, READY_CONDITION, {
      targetType: MACHINES_READY_CONDITION,
      trueReason: 'Ready',
      falseReason: 'NotReady',
      unknownReason: 'ReadyUnknown',
      noObjects: noReplicas,
    }),
    aggregate(machines, UP_TO_DATE_CONDITION, {
      targetType: MACHINES_UP_TO_DATE_CONDITION,
      trueReason: 'UpToDate',
      falseReason: 'NotUpToDate',
      unknownReason: 'UpToDateUnknown',
      noObjects: noReplicas,
    }),
    upToDate < replicas || replicas !== desired
      ? {
          type: ROLLING_OUT_CONDITION,
          status: 'True',
          reason: 'RollingOut',
          message: `Rolling out ${replicas - upToDate} not up-to-date replicas`,
        }
      : { type: ROLLING_OUT_CONDITION, status: 'False', reason: 'NotRollingOut' },
    desired > replicas
      ? {
          type: SCALING_UP_CONDITION,
          status: 'True',
          reason: 'ScalingUp',
          message: `Scaling up from ${replicas} to ${desired} replicas`,
        }
      : { type: SCALING_UP_CONDITION, status: 'False', reason: 'NotScalingUp' },
    desired < replicas
      ? {
          type: SCALING_DOWN_CONDITION,
          status: 'True',
          reason: 'ScalingDown',
          message: `Scaling down from ${replicas} to ${desired} replicas`,
        }
      : { type: SCALING_DOWN_CONDITION, status: 'False', reason: 'NotScalingDown' },
  ];
  if (input.error) {
    // The rollout is stuck on this error: say so where users look for rollout progress.
    inputs[3] = {
      type: ROLLING_OUT_CONDITION,
      status: 'Unknown',
      reason: input.error.reason,
      message: input.error.message,
    };
  }
  let conditions: Condition[] | undefined = md.status?.conditions;
  if (input.rolloutBlocked) inputs.push(input.rolloutBlocked);
  else if (conditions?.some((c) => c.type === ROLLOUT_BLOCKED_CONDITION))
    conditions = conditions.filter((c) => c.type !== ROLLOUT_BLOCKED_CONDITION);
  for (const c of inputs)
    conditions = setCondition(conditions, { ...c, observedGeneration: md.metadata.generation }, clock);
  const phase = desired > replicas ? 'ScalingUp' : desired < replicas ? 'ScalingDown' : 'Running';
  return {
    ...(md.status ?? {}),
    conditions,
    selector: formatLabelSelector(md.spec.selector) || undefined,
    replicas,
    readyReplicas: sum(machineSets, (s) => s.readyReplicas),
    availableReplicas: available,
    upToDateReplicas: upToDate,
    phase,
    ...(md.metadata.generation ? { observedGeneration: md.metadata.generation } : {}),
  };
}
