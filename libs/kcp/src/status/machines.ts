// KCP conditions aggregated from its Machines (upstream controlplane/kubeadm/reconcilers/kubeadmcontrolplane/status.go
// setRollingOutCondition, setMachinesReadyCondition, setMachinesUpToDateCondition, setRemediatingCondition,
// aggregateUnhealthyMachines), on @capi/api's newAggregateCondition (upstream conditions.NewAggregateCondition).
import { listToString } from '@capi/apimachinery';
import {
  MACHINES_READY_CONDITION,
  MACHINES_UP_TO_DATE_CONDITION,
  OWNER_REMEDIATED_CONDITION,
  READY_CONDITION,
  REMEDIATING_CONDITION,
  ROLLING_OUT_CONDITION,
  UP_TO_DATE_CONDITION,
  aggregateSourceOf,
  getCondition,
  isMachineToBeRemediated,
  isMachineUnhealthy,
  newAggregateCondition,
  type AggregateConditionOptions,
  type ConditionInput,
  type Machine,
} from '@capi/api';

const INTERNAL_ERROR_REASON = 'InternalError';

/** A new Machine gets this long to report UpToDate before MachinesUpToDate counts it (no flicker after a create). */
const UP_TO_DATE_GRACE_MS = 10_000;

const VERSION_PREFIX = '* Version';

/**
 * Upstream setRollingOutCondition: the Machines with UpToDate False roll out; the reasons are the distinct lines of
 * their UpToDate messages, a version change first, then in byte order.
 */
export function rollingOutCondition(machines: readonly Machine[]): ConditionInput {
  let rollingOut = 0;
  const reasons = new Set<string>();
  for (const m of machines) {
    const c = getCondition(m, UP_TO_DATE_CONDITION);
    if (c?.status !== 'False') continue;
    rollingOut++;
    if (c.message) for (const line of c.message.split('\n')) reasons.add(line);
  }
  if (rollingOut === 0) return { type: ROLLING_OUT_CONDITION, status: 'False', reason: 'NotRollingOut' };
  let message = `Rolling out ${rollingOut} not up-to-date replicas`;
  if (reasons.size > 0) {
    const sorted = [...reasons].sort((a, b) => {
      const av = a.startsWith(VERSION_PREFIX);
      const bv = b.startsWith(VERSION_PREFIX);
      if (av !== bv) return av ? -1 : 1;
      return a < b ? -1 : a > b ? 1 : 0;
    });
    message += `\n${sorted.join('\n')}`;
  }
  return { type: ROLLING_OUT_CONDITION, status: 'True', reason: 'RollingOut', message };
}

/** NewAggregateCondition over Machines, or Unknown/InternalError as upstream when it fails. */
function aggregateMachines(
  machines: readonly Machine[],
  sourceType: string,
  targetType: string,
  options: AggregateConditionOptions,
): ConditionInput {
  try {
    const sources = machines.map((m) => aggregateSourceOf(m, 'Machine'));
    const c = newAggregateCondition(sources, sourceType, { ...options, targetType });
    return { type: c.type, status: c.status, reason: c.reason, ...(c.message ? { message: c.message } : {}) };
  } catch {
    return {
      type: targetType,
      status: 'Unknown',
      reason: INTERNAL_ERROR_REASON,
      message: 'Please check controller logs for errors',
    };
  }
}

/** Upstream setMachinesReadyCondition (KCP's merge reasons NotReady / ReadyUnknown / Ready). */
export function machinesReadyCondition(machines: readonly Machine[]): ConditionInput {
  if (machines.length === 0) return { type: MACHINES_READY_CONDITION, status: 'True', reason: 'NoReplicas' };
  return aggregateMachines(machines, READY_CONDITION, MACHINES_READY_CONDITION, {
    reasons: { issue: 'NotReady', unknown: 'ReadyUnknown', info: 'Ready' },
  });
}

/**
 * Upstream setMachinesUpToDateCondition: only Machines with an UpToDate condition or older than 10 s count (KCP
 * merge reasons NotUpToDate / UpToDateUnknown / UpToDate).
 */
export function machinesUpToDateCondition(machines: readonly Machine[], nowMs: number): ConditionInput {
  const considered = machines.filter(
    (m) =>
      !!getCondition(m, UP_TO_DATE_CONDITION) ||
      nowMs - Date.parse(m.metadata.creationTimestamp ?? '1970-01-01T00:00:00Z') > UP_TO_DATE_GRACE_MS,
  );
  if (considered.length === 0) return { type: MACHINES_UP_TO_DATE_CONDITION, status: 'True', reason: 'NoReplicas' };
  return aggregateMachines(considered, UP_TO_DATE_CONDITION, MACHINES_UP_TO_DATE_CONDITION, {
    reasons: { issue: 'NotUpToDate', unknown: 'UpToDateUnknown', info: 'UpToDate' },
  });
}

/** Upstream aggregateUnhealthyMachines: up to three names of unhealthy Machines KCP will not remediate. */
export function aggregateUnhealthyMachines(machines: readonly Machine[]): string {
  const names = machines.map((m) => m.metadata.name ?? '').sort();
  if (names.length === 0) return '';
  const many = names.length > 1;
  return `Machine${many ? 's' : ''} ${listToString(names, 3)} ${many ? 'are' : 'is'} not healthy (not to be remediated by KubeadmControlPlane)`;
}

/**
 * Upstream setRemediatingCondition: True while Machines are to be remediated by KCP (MHC set HealthCheckSucceeded
 * and OwnerRemediated False), with their OwnerRemediated messages aggregated; else False naming the unhealthy ones.
 */
export function remediatingCondition(machines: readonly Machine[]): ConditionInput {
  const toBeRemediated = machines.filter(isMachineToBeRemediated);
  if (toBeRemediated.length === 0) {
    const message = aggregateUnhealthyMachines(machines.filter(isMachineUnhealthy));
    return { type: REMEDIATING_CONDITION, status: 'False', reason: 'NotRemediating', ...(message ? { message } : {}) };
  }
  const c = aggregateMachines(toBeRemediated, OWNER_REMEDIATED_CONDITION, REMEDIATING_CONDITION, {});
  if (c.reason === INTERNAL_ERROR_REASON) return c;
  return {
    type: REMEDIATING_CONDITION,
    status: 'True',
    reason: 'Remediating',
    ...(c.message ? { message: c.message } : {}),
  };
}
