// WorkersAvailable, Control plane / Worker MachinesReady and MachinesUpToDate, and Remediating, as upstream
// setWorkersAvailableCondition, machinesConditionSetter and setRemediatingCondition in
// core/reconcilers/cluster/cluster_controller_status.go (MachinePools left out: this project has none).
import {
  aggregateSourceOf,
  type AggregateSource,
  type Condition,
  AVAILABLE_CONDITION,
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

/** Upstream machinesConditionSetter.setMachinesCondition, over the Machines' sources for the aggregated type. */
function machinesCondition(
  s: MachinesConditionSetter,
  sources: readonly AggregateSource[],
  getDescendantsSucceeded: boolean,
): ConditionInput {
  if (!getDescendantsSucceeded) return internalError(s.condition);
  if (sources.length === 0) return { type: s.condition, status: 'True', reason: NO_REPLICAS_REASON };
  return aggregateOrInternalError(s.condition, () =>
    newAggregateCondition(sources, s.machineAggregationCondition, {
      targetType: s.condition,
      reasons: { issue: s.issueReason, unknown: s.unknownReason, info: s.infoReason },
    }),
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

/**
 * Each Machine as a source of its Ready and of its UpToDate condition, its conditions read once: at thousands of
 * Machines, reading each Machine's memory is most of what the Cluster's status costs. The UpToDate sources leave out
 * new Machines that do not report the condition yet (see upToDateInScope).
 */
function machineSources(machines: readonly Machine[], now: number) {
  const readySources: AggregateSource[] = [];
  const upToDateSources: AggregateSource[] = [];
  for (const m of machines) {
    let readyCondition: Condition | undefined;
    let upToDateCondition: Condition | undefined;
    for (const c of m.status?.conditions ?? []) {
      if (c.type === READY_CONDITION) readyCondition ??= c;
      else if (c.type === UP_TO_DATE_CONDITION) upToDateCondition ??= c;
    }
    const { kind, name, isControlPlaneMachine } = aggregateSourceOf({ kind: m.kind, metadata: m.metadata }, 'Machine');
    readySources.push({ kind, name, isControlPlaneMachine, conditions: readyCondition ? [readyCondition] : [] });
    if (upToDateCondition || upToDateInScope(m, now)) {
      const conditions = upToDateCondition ? [upToDateCondition] : [];
      upToDateSources.push({ kind, name, isControlPlaneMachine, conditions });
    }
  }
  return { readySources, upToDateSources };
}

/**
 * A Machine without UpToDate counts once it is older than 10 s: a new Machine takes a moment to get the condition,
 * and counting it meanwhile would make MachinesUpToDate flicker.
 */
const upToDateInScope = (m: Machine, now: number): boolean =>
  now - (Date.parse(m.metadata.creationTimestamp ?? '') || 0) > 10_000;

/** [<Kind>MachinesReady, <Kind>MachinesUpToDate] of the control plane's or the workers' Machines. */
function machinesConditions(
  types: { ready: string; upToDate: string },
  machines: readonly Machine[],
  ok: boolean,
  now: number,
): [ConditionInput, ConditionInput] {
  const { readySources, upToDateSources } = machineSources(ok ? machines : [], now);
  return [
    machinesCondition({ condition: types.ready, ...ready }, readySources, ok),
    machinesCondition({ condition: types.upToDate, ...upToDate }, upToDateSources, ok),
  ];
}

const CONTROL_PLANE = {
  ready: CLUSTER_CONTROL_PLANE_MACHINES_READY_CONDITION,
  upToDate: CLUSTER_CONTROL_PLANE_MACHINES_UP_TO_DATE_CONDITION,
};
const WORKERS = {
  ready: CLUSTER_WORKER_MACHINES_READY_CONDITION,
  upToDate: CLUSTER_WORKER_MACHINES_UP_TO_DATE_CONDITION,
};

/** ControlPlaneMachinesReady and ControlPlaneMachinesUpToDate. */
export const controlPlaneMachinesConditions = (machines: readonly Machine[], ok: boolean, now: number) =>
  machinesConditions(CONTROL_PLANE, machines, ok, now);

/** WorkerMachinesReady and WorkerMachinesUpToDate. */
export const workerMachinesConditions = (machines: readonly Machine[], ok: boolean, now: number) =>
  machinesConditions(WORKERS, machines, ok, now);

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
