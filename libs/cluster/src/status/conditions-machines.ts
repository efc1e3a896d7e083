// WorkersAvailable, Control plane / Worker MachinesReady and MachinesUpToDate, and Remediating, as upstream
// setWorkersAvailableCondition, machinesConditionSetter and setRemediatingCondition in
// core/reconcilers/cluster/cluster_controller_status.go (MachinePools left out: this project has none).
import {
  aggregateSourceOf,
  AVAILABLE_CONDITION,
  getCondition,
  newAggregateCondition,
  OWNER_REMEDIATED_CONDITION,
  READY_CONDITION,
  UP_TO_DATE_CONDITION,
  type ConditionInput,
  type Machine,
  type MachineDeployment,
} from '@capi/api';
import { listToString } from '@capi/apimachinery';
import {
  AVAILABLE_REASON,
  AVAILABLE_UNKNOWN_REASON,
  CHECK_LOGS_MESSAGE,
  CLUSTER_CONTROL_PLANE_MACHINES_READY_CONDITION,
  CLUSTER_CONTROL_PLANE_MACHINES_UP_TO_DATE_CONDITION,
  CLUSTER_NOT_REMEDIATING_REASON,
  CLUSTER_REMEDIATING_CONDITION,
  CLUSTER_REMEDIATING_REASON,
  CLUSTER_WORKER_MACHINES_READY_CONDITION,
  CLUSTER_WORKER_MACHINES_UP_TO_DATE_CONDITION,
  CLUSTER_WORKERS_AVAILABLE_CONDITION,
  CLUSTER_WORKERS_AVAILABLE_NO_WORKERS_REASON,
  INTERNAL_ERROR_REASON,
  NO_REPLICAS_REASON,
  NOT_AVAILABLE_REASON,
  NOT_READY_REASON,
  NOT_UP_TO_DATE_REASON,
  READY_REASON,
  READY_UNKNOWN_REASON,
  UP_TO_DATE_REASON,
  UP_TO_DATE_UNKNOWN_REASON,
} from './constants';

const internalError = (type: string): ConditionInput => ({
  type,
  status: 'Unknown',
  reason: INTERNAL_ERROR_REASON,
  message: CHECK_LOGS_MESSAGE,
});

/** newAggregateCondition's result, or InternalError if it fails (upstream logs the error). */
function aggregateOrInternalError(type: string, aggregate: () => ConditionInput): ConditionInput {
  try {
    return aggregate();
  } catch {
    return internalError(type);
  }
}

export function workersAvailableCondition(
  machineDeployments: readonly MachineDeployment[],
  getDescendantsSucceeded: boolean,
): ConditionInput {
  const type = CLUSTER_WORKERS_AVAILABLE_CONDITION;
  if (!getDescendantsSucceeded) return internalError(type);
  if (machineDeployments.length === 0) {
    return { type, status: 'True', reason: CLUSTER_WORKERS_AVAILABLE_NO_WORKERS_REASON };
  }
  return aggregateOrInternalError(type, () =>
    newAggregateCondition(
      machineDeployments.map((md) => aggregateSourceOf(md, 'MachineDeployment')),
      AVAILABLE_CONDITION,
      {
        targetType: type,
        reasons: { issue: NOT_AVAILABLE_REASON, unknown: AVAILABLE_UNKNOWN_REASON, info: AVAILABLE_REASON },
      },
    ),
  );
}

interface MachinesConditionSetter {
  condition: string;
  machineAggregationCondition: string;
  issueReason: string;
  unknownReason: string;
  infoReason: string;
}

/** Upstream machinesConditionSetter.setMachinesCondition. */
function machinesCondition(
  s: MachinesConditionSetter,
  machines: readonly Machine[],
  getDescendantsSucceeded: boolean,
): ConditionInput {
  if (!getDescendantsSucceeded) return internalError(s.condition);
  if (machines.length === 0) return { type: s.condition, status: 'True', reason: NO_REPLICAS_REASON };
  return aggregateOrInternalError(s.condition, () =>
    newAggregateCondition(
      machines.map((m) => aggregateSourceOf(m, 'Machine')),
      s.machineAggregationCondition,
      {
        targetType: s.condition,
        reasons: { issue: s.issueReason, unknown: s.unknownReason, info: s.infoReason },
      },
    ),
  );
}

const ready = {
  machineAggregationCondition: READY_CONDITION,
  issueReason: NOT_READY_REASON,
  unknownReason: READY_UNKNOWN_REASON,
  infoReason: READY_REASON,
};
const upToDate = {
  machineAggregationCondition: UP_TO_DATE_CONDITION,
  issueReason: NOT_UP_TO_DATE_REASON,
  unknownReason: UP_TO_DATE_UNKNOWN_REASON,
  infoReason: UP_TO_DATE_REASON,
};

export const controlPlaneMachinesReadyCondition = (machines: readonly Machine[], ok: boolean) =>
  machinesCondition({ condition: CLUSTER_CONTROL_PLANE_MACHINES_READY_CONDITION, ...ready }, machines, ok);

export const workerMachinesReadyCondition = (machines: readonly Machine[], ok: boolean) =>
  machinesCondition({ condition: CLUSTER_WORKER_MACHINES_READY_CONDITION, ...ready }, machines, ok);

/**
 * Machines that report UpToDate or are older than 10 s: a new Machine takes a moment to get the condition, and
 * counting it meanwhile would make MachinesUpToDate flicker.
 */
function upToDateInScope(machines: readonly Machine[], now: number): Machine[] {
  return machines.filter(
    (m) =>
      !!getCondition(m, UP_TO_DATE_CONDITION) || now - (Date.parse(m.metadata.creationTimestamp ?? '') || 0) > 10_000,
  );
}

export const controlPlaneMachinesUpToDateCondition = (machines: readonly Machine[], ok: boolean, now: number) =>
  machinesCondition(
    { condition: CLUSTER_CONTROL_PLANE_MACHINES_UP_TO_DATE_CONDITION, ...upToDate },
    upToDateInScope(machines, now),
    ok,
  );

export const workerMachinesUpToDateCondition = (machines: readonly Machine[], ok: boolean, now: number) =>
  machinesCondition(
    { condition: CLUSTER_WORKER_MACHINES_UP_TO_DATE_CONDITION, ...upToDate },
    upToDateInScope(machines, now),
    ok,
  );

/** Upstream aggregateUnhealthyMachines: "Machine(s) a, b, c, ... (n more) is/are not healthy (not to be remediated)". */
function unhealthyMachinesMessage(machines: readonly Machine[]): string | undefined {
  const names = machines.map((m) => m.metadata.name ?? '').sort();
  if (names.length === 0) return undefined;
  const many = names.length > 1;
  return `Machine${many ? 's' : ''} ${listToString(names, 3)} ${many ? 'are' : 'is'} not healthy (not to be remediated)`;
}

export function remediatingCondition(
  machinesToBeRemediated: readonly Machine[],
  unhealthyMachines: readonly Machine[],
  getDescendantsSucceeded: boolean,
): ConditionInput {
  const type = CLUSTER_REMEDIATING_CONDITION;
  if (!getDescendantsSucceeded) return internalError(type);
  if (machinesToBeRemediated.length === 0) {
    const message = unhealthyMachinesMessage(unhealthyMachines);
    return { type, status: 'False', reason: CLUSTER_NOT_REMEDIATING_REASON, ...(message ? { message } : {}) };
  }
  // Only Machines to be remediated are aggregated, so the reason is pinned rather than computed.
  return aggregateOrInternalError(type, () => {
    const agg = newAggregateCondition(
      machinesToBeRemediated.map((m) => aggregateSourceOf(m, 'Machine')),
      OWNER_REMEDIATED_CONDITION,
      { targetType: type },
    );
    return { type, status: 'True', reason: CLUSTER_REMEDIATING_REASON, message: agg.message };
  });
}
