import { listToString } from '@capi/apimachinery';
import { aggregate, isFalse, type ConditionInput } from './conditions';
import { HEALTH_CHECK_SUCCEEDED_CONDITION, OWNER_REMEDIATED_CONDITION, REMEDIATING_CONDITION } from './constants';
import type { Machine } from './types/machine';

// Owner remediation (KCP, MachineSet): MHC marks a Machine HealthCheckSucceeded=False + OwnerRemediated=False and the
// owner acts on it. The predicates and the owner's Remediating condition are shared so both owners read them alike.

export const REMEDIATING_REASON = 'Remediating';
export const NOT_REMEDIATING_REASON = 'NotRemediating';

/** MHC found the Machine unhealthy. */
export const isMachineUnhealthy = (m: Machine): boolean => isFalse(m, HEALTH_CHECK_SUCCEEDED_CONDITION);

/** MHC asked the owner to remediate the Machine. */
export const isMachineToBeRemediated = (m: Machine): boolean =>
  isMachineUnhealthy(m) && isFalse(m, OWNER_REMEDIATED_CONDITION);

/**
 * The owner's Remediating condition: True while Machines are to be remediated (their OwnerRemediated aggregated),
 * else False, naming up to three unhealthy Machines the owner will not remediate.
 */
export function ownerRemediatingCondition(machines: readonly Machine[], ownerKind: string): ConditionInput {
  const toBeRemediated = machines.filter(isMachineToBeRemediated);
  if (toBeRemediated.length === 0) {
    const unhealthy = machines
      .filter(isMachineUnhealthy)
      .map((m) => m.metadata.name ?? '')
      .sort();
    const shown = listToString(unhealthy, 3);
    const many = unhealthy.length > 1;
    const message =
      unhealthy.length === 0
        ? undefined
        : `Machine${many ? 's' : ''} ${shown} ${many ? 'are' : 'is'} not healthy (not to be remediated by ${ownerKind})`;
    return { type: REMEDIATING_CONDITION, status: 'False', reason: NOT_REMEDIATING_REASON, message };
  }
  const reasons = {
    trueReason: REMEDIATING_REASON,
    falseReason: REMEDIATING_REASON,
    unknownReason: REMEDIATING_REASON,
  };
  const agg = aggregate(toBeRemediated, OWNER_REMEDIATED_CONDITION, { targetType: REMEDIATING_CONDITION, ...reasons });
  return { type: REMEDIATING_CONDITION, status: 'True', reason: REMEDIATING_REASON, message: agg.message };
}
