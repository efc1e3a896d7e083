// Machine status as a pure function of what the reconciler observed (upstream machine_controller_status.go):
// BootstrapConfigReady, InfrastructureReady, NodeReady/NodeHealthy, Updating, UpToDate (workers), Deleting, Ready
// (ready.ts), Available, phase.
import { formatTime, type PassiveClock, type KubeObject } from '@capi/apimachinery';
import {
  AVAILABLE_CONDITION,
  BOOTSTRAP_CONFIG_READY_CONDITION,
  DELETING_CONDITION,
  INFRASTRUCTURE_READY_CONDITION,
  IN_PLACE_UPDATING_REASON,
  NODE_HEALTHY_CONDITION,
  NODE_READY_CONDITION,
  NOT_DELETING_REASON,
  NOT_UPDATING_REASON,
  READY_CONDITION,
  UPDATING_CONDITION,
  getCondition,
  isUpdateInProgress,
  setCondition,
  type Condition,
  type ConditionInput,
  type ConditionStatus,
} from '@capi/api';
import type { UpdatingReport } from './inplace-decision';
import { readyCondition } from './ready';
import { upToDateCondition, type UpToDateOwners } from './uptodate';
import type { MachineObject } from './types';

export interface ExternalObservation {
  object?: KubeObject;
  /** True when the object was looked up and does not exist (false: not looked up or read failed). */
  notFound: boolean;
}

export interface NodeObservation {
  node?: KubeObject;
  /** Reading the workload cluster failed. */
  error?: string;
  /** Why the node was not inspected (e.g. control plane not initialized); conditions become Unknown with this. */
  notInspected?: string;
}

export interface StatusInput {
  machine: MachineObject;
  bootstrap: ExternalObservation;
  infra: ExternalObservation;
  node: NodeObservation;
  updating?: UpdatingReport;
  deleting?: { reason: string; message?: string };
  /** The owning MachineSet and its MachineDeployment, for UpToDate (none: the condition is left alone). */
  owners?: UpToDateOwners;
  clock: PassiveClock;
}

export interface StatusResult {
  status: NonNullable<MachineObject['status']>;
  /** Re-evaluate Available after this many ms (minReadySeconds). */
  requeueAfterMs?: number;
}

type ObjStatus = { conditions?: Condition[]; initialization?: Record<string, unknown> };

function statusOf(obj: KubeObject | undefined): ObjStatus {
  return ((obj?.status as ObjStatus | undefined) ?? {}) as ObjStatus;
}

/** Mirrors the external object's Ready condition, or falls back to its initialization flag (upstream NewMirrorCondition). */
function mirrorReady(
  type: string,
  obj: KubeObject,
  flag: boolean,
  trueReason: string,
  falseReason: string,
  kind: string,
): ConditionInput {
  const ready = statusOf(obj).conditions?.find((c) => c.type === READY_CONDITION);
  if (ready) {
    const reason =
      ready.reason && ready.reason !== '' ? ready.reason : ready.status === 'True' ? trueReason : 'NoReasonReported';
    return { type, status: ready.status, reason, message: ready.message };
  }
  return {
    type,
    status: flag ? 'True' : 'False',
    reason: flag ? trueReason : falseReason,
    message: flag ? undefined : `${kind} status.initialization is not yet provisioned`,
  };
}

export function bootstrapConfigReadyCondition(machine: MachineObject, obs: ExternalObservation): ConditionInput {
  const type = BOOTSTRAP_CONFIG_READY_CONDITION;
  const ref = machine.spec.bootstrap?.configRef;
  if (!ref) return { type, status: 'True', reason: 'DataSecretProvided' };
  const created = machine.status?.initialization?.bootstrapDataSecretCreated === true;
  if (obs.object) return mirrorReady(type, obs.object, created, 'Ready', 'NotReady', ref.kind);
  if (!obs.notFound)
    return { type, status: 'Unknown', reason: 'InternalError', message: 'Please check controller logs for errors' };
  if (machine.metadata.deletionTimestamp && created)
    return { type, status: 'False', reason: 'Deleted', message: `${ref.kind} has been deleted` };
  return { type, status: 'False', reason: 'DoesNotExist', message: `${ref.kind} does not exist` };
}

export function infrastructureReadyCondition(machine: MachineObject, obs: ExternalObservation): ConditionInput {
  const type = INFRASTRUCTURE_READY_CONDITION;
  const kind = machine.spec.infrastructureRef.kind;
  const provisioned = machine.status?.initialization?.infrastructureProvisioned === true;
  if (obs.object) return mirrorReady(type, obs.object, provisioned, 'Ready', 'NotReady', kind);
  if (!obs.notFound)
    return { type, status: 'Unknown', reason: 'InternalError', message: 'Please check controller logs for errors' };
  if (machine.metadata.deletionTimestamp) {
    return provisioned
      ? { type, status: 'False', reason: 'Deleted', message: `${kind} has been deleted` }
      : { type, status: 'False', reason: 'DoesNotExist', message: `${kind} does not exist` };
  }
  if (provisioned)
    return {
      type,
      status: 'False',
      reason: 'Deleted',
      message: `${kind} has been deleted while the Machine still exists`,
    };
  return { type, status: 'False', reason: 'DoesNotExist', message: `${kind} does not exist` };
}

interface NodeCondition {
  type: string;
  status: ConditionStatus;
  message?: string;
}

/** NodeReady and NodeHealthy (upstream setNodeHealthyAndReadyConditions / summarizeNodeConditions). */
export function nodeConditions(machine: MachineObject, obs: NodeObservation): [ConditionInput, ConditionInput] {
  const both = (status: ConditionStatus, reason: string, message?: string): [ConditionInput, ConditionInput] => [
    { type: NODE_READY_CONDITION, status, reason, message },
    { type: NODE_HEALTHY_CONDITION, status, reason, message },
  ];
  if (obs.notInspected) return both('Unknown', 'InspectionFailed', obs.notInspected);
  if (obs.error) return both('Unknown', 'InternalError', 'Please check controller logs for errors');
  const nodeRef = machine.status?.nodeRef?.name;
  if (obs.node) {
    const conds = (obs.node.status as { conditions?: NodeCondition[] } | undefined)?.conditions ?? [];
    const ready = conds.find((c) => c.type === 'Ready');
    const readyCond: ConditionInput = ready
      ? {
          type: NODE_READY_CONDITION,
          status: ready.status,
          reason:
            ready.status === 'True' ? 'NodeReady' : ready.status === 'False' ? 'NodeNotReady' : 'NodeReadyUnknown',
          message: ready.status !== 'True' && ready.message ? `* Node.Ready: ${ready.message}` : undefined,
        }
      : {
          type: NODE_READY_CONDITION,
          status: 'Unknown',
          reason: 'NodeReadyUnknown',
          message: '* Node.Ready: Condition not yet reported',
        };
    return [readyCond, { type: NODE_HEALTHY_CONDITION, ...summarizeNode(conds) }];
  }
  if (machine.metadata.deletionTimestamp) {
    return nodeRef
      ? both('False', 'NodeDeleted', `Node ${nodeRef} has been deleted`)
      : both('Unknown', 'NodeDoesNotExist', 'Node does not exist');
  }
  if (nodeRef) return both('False', 'NodeDeleted', `Node ${nodeRef} has been deleted while the Machine still exists`);
  if (machine.spec.providerID)
    return both(
      'Unknown',
      'InspectionFailed',
      `Waiting for a Node with spec.providerID ${machine.spec.providerID} to exist`,
    );
  return both(
    'Unknown',
    'InspectionFailed',
    `Waiting for ${machine.spec.infrastructureRef.kind} to report spec.providerID`,
  );
}

function summarizeNode(conds: NodeCondition[]): { status: ConditionStatus; reason: string; message?: string } {
  let bad = 0;
  let unknown = 0;
  let reported = 0; // conditions reporting a problem (not the missing ones)
  const problems = new Set<string>();
  let messages: string[] = [];
  for (const t of ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure']) {
    const c = conds.find((x) => x.type === t);
    if (!c) {
      messages.push(`* Node.${t}: Condition not yet reported`);
      unknown++;
      continue;
    }
    const healthy = t === 'Ready' ? c.status === 'True' : c.status === 'False';
    if (healthy) continue;
    const m = c.message || `Condition is ${c.status}`;
    reported++;
    problems.add(m);
    messages.push(`* Node.${t}: ${m}`);
    if (c.status === 'Unknown') unknown++;
    else bad++;
  }
  // Several conditions saying the same (e.g. "Kubelet stopped posting node status."): one line.
  if (reported > 1 && problems.size === 1) messages = [`* Node.AllConditions: ${[...problems][0]}`];
  if (bad > 0) return { status: 'False', reason: 'NodeNotHealthy', message: messages.join('\n') };
  if (unknown > 0) return { status: 'Unknown', reason: 'NodeHealthUnknown', message: messages.join('\n') };
  return { status: 'True', reason: 'NodeHealthy' };
}

/** Updating: True while the Machine IsUpdateInProgress, with the in-place phase's reason/message when it reported one. */
export function updatingCondition(machine: MachineObject, report: UpdatingReport | undefined): ConditionInput {
  if (!isUpdateInProgress(machine)) return { type: UPDATING_CONDITION, status: 'False', reason: NOT_UPDATING_REASON };
  if (report) return { type: UPDATING_CONDITION, status: 'True', reason: report.reason, message: report.message };
  return {
    type: UPDATING_CONDITION,
    status: 'True',
    reason: IN_PLACE_UPDATING_REASON,
    message: 'In-place update in progress',
  };
}

/** Available: Ready for at least spec.minReadySeconds (an updating Machine is not Ready, hence not Available). */
export function availableCondition(
  machine: MachineObject,
  ready: Condition | undefined,
  nowMs: number,
): { condition: ConditionInput; requeueAfterMs?: number } {
  const type = AVAILABLE_CONDITION;
  if (!ready || ready.status !== 'True') return { condition: { type, status: 'False', reason: 'NotReady' } };
  const minReadyMs = (machine.spec.minReadySeconds ?? 0) * 1000;
  const readyFor = nowMs - Date.parse(ready.lastTransitionTime);
  if (readyFor >= minReadyMs) return { condition: { type, status: 'True', reason: 'Available' } };
  return {
    condition: { type, status: 'False', reason: 'WaitingForMinReadySeconds' },
    requeueAfterMs: minReadyMs - readyFor,
  };
}

export type MachinePhase = NonNullable<NonNullable<MachineObject['status']>['phase']>;

/**
 * Phase by upstream precedence, starting from the current phase (Pending when none): Provisioning < Provisioned <
 * Running < Updating (Updating condition True) < Deleting. `conditions` must hold this reconcile's Updating.
 */
export function machinePhase(
  machine: MachineObject,
  conditions: readonly Condition[] = machine.status?.conditions ?? [],
): MachinePhase {
  const init = machine.status?.initialization;
  let phase: MachinePhase = machine.status?.phase || 'Pending';
  if (init?.bootstrapDataSecretCreated && !init?.infrastructureProvisioned) phase = 'Provisioning';
  if (machine.spec.providerID) phase = 'Provisioned';
  if (machine.status?.nodeRef?.name && init?.infrastructureProvisioned) phase = 'Running';
  if (getCondition(conditions, UPDATING_CONDITION)?.status === 'True') phase = 'Updating';
  if (machine.metadata.deletionTimestamp) phase = 'Deleting';
  return phase;
}

/**
 * The Machine's new status. `machine.status.initialization` / `nodeRef` must already hold the reconciled values
 * (the reconciler sets them); this adds conditions, phase and lastUpdated. Unchanged conditions keep their times.
 */
export function computeMachineStatus(input: StatusInput): StatusResult {
  const { machine, clock } = input;
  const status = structuredClone(machine.status ?? {}) as NonNullable<MachineObject['status']>;
  let conditions: Condition[] = status.conditions ?? [];
  const set = (c: ConditionInput) => {
    conditions = setCondition(conditions, { ...c, observedGeneration: machine.metadata.generation }, clock);
  };
  set(bootstrapConfigReadyCondition(machine, input.bootstrap));
  set(infrastructureReadyCondition(machine, input.infra));
  for (const c of nodeConditions(machine, input.node)) set(c);
  set(updatingCondition(machine, input.updating));
  if (!machine.metadata.deletionTimestamp)
    set({ type: DELETING_CONDITION, status: 'False', reason: NOT_DELETING_REASON });
  else if (input.deleting)
    set({ type: DELETING_CONDITION, status: 'True', reason: input.deleting.reason, message: input.deleting.message });
  const upToDate = input.owners
    ? upToDateCondition(machine, conditions, input.owners, new Date(clock.now()))
    : undefined;
  if (upToDate) set(upToDate);
  set(readyCondition(machine, conditions, clock.now()));
  const available = availableCondition(machine, getCondition(conditions, READY_CONDITION), clock.now());
  set(available.condition);
  status.conditions = conditions;
  const phase = machinePhase(machine, conditions);
  if (status.phase !== phase) {
    status.phase = phase;
    status.lastUpdated = formatTime(clock.now());
  }
  if (machine.metadata.generation !== undefined) status.observedGeneration = machine.metadata.generation;
  return { status, requeueAfterMs: available.requeueAfterMs };
}
