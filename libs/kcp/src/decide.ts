// Pure reconcile decisions of the KubeadmControlPlane controller (upstream controller.go reconcile, scale.go,
// update.go/upgrade.go, inplace.go): what to do next given the Machines, their up-to-date state and their health.
import {
  DELETE_MACHINE_ANNOTATION,
  UPDATE_IN_PROGRESS_ANNOTATION,
  UPDATING_CONDITION,
  isPending,
  isTrue,
  isUpdateInProgress,
  type ConditionInput,
  type KubeadmControlPlane,
  type Machine,
} from '@capi/api';
import { machineInFailureDomainWithMostMachines, nextFailureDomainForScaleUp } from './failure-domains';
import { MACHINE_ETCD_MEMBER_HEALTHY_CONDITION } from './constants';
import { isEtcdManaged, requiredHealthConditions } from './health';

/** One control-plane Machine as the decisions see it. */
export interface ControlPlaneMachine {
  machine: Machine;
  /** Spec-wise up-to-date (upToDate().upToDate). */
  upToDate: boolean;
  eligibleForInPlaceUpdate: boolean;
  /** Node health read from the workload cluster: undefined = could not be determined. */
  nodeHealthy?: boolean;
  /** Control-plane component / etcd member health conditions computed this reconcile (health.ts). */
  health?: ConditionInput[];
}

export type KcpAction =
  /** No Machines yet: create the first one (initConfiguration). */
  | { type: 'initialize' }
  /**
   * Machines carry update-in-progress but not the pending UpdateMachine hook: finish their triggers (upstream
   * controller.go reconcile with MachinesToCompleteTriggerInPlaceUpdate; a repeated triggerInPlaceUpdate completes one).
   */
  | { type: 'completeInPlaceTrigger'; machines: string[] }
  /** Machines are being updated in place: one in-place update at a time, nothing else until they are done. */
  | { type: 'waitForInPlaceUpdate'; machines: string[] }
  | { type: 'scaleUp'; rollout: boolean }
  /**
   * Rollout step: update `machine` in place if possible, else delete it. `inPlaceOnly` (this project's InPlaceOnly
   * rollout policy): never delete it for the rollout; report it as held back instead.
   */
  | { type: 'rolloutMachine'; machine: string; tryInPlace: boolean; inPlaceOnly?: boolean }
  | { type: 'scaleDown'; machine: string }
  | { type: 'none' };

export class KcpSpecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KcpSpecError';
  }
}

/**
 * Updating in place: the markers are set, or the Machine controller still reports Updating=True (its status can lag
 * the marker removal by one reconcile).
 */
export const isUpdatingInPlace = (machine: Machine): boolean =>
  isUpdateInProgress(machine) || isTrue(machine, UPDATING_CONDITION);

export const desiredReplicas = (kcp: KubeadmControlPlane): number => kcp.spec.replicas ?? 1;

/** rollingUpdate.maxSurge: 0 or 1 (default 1), like the upstream webhook allows. */
export function maxSurge(kcp: KubeadmControlPlane): number {
  const v = kcp.spec.rollout?.strategy?.rollingUpdate?.maxSurge;
  if (v === undefined) return 1;
  const n = typeof v === 'number' ? v : /^\d+$/.test(v) ? Number(v) : Number.NaN;
  if (n !== 0 && n !== 1)
    throw new KcpSpecError(`spec.rollout.strategy.rollingUpdate.maxSurge must be 0 or 1, got ${JSON.stringify(v)}`);
  return n;
}

/**
 * A control-plane component or etcd condition computed this reconcile is False (upstream
 * collections.HasUnhealthyControlPlaneComponents; Unknown or missing is transient, not unhealthy).
 */
export function hasUnhealthyControlPlaneComponents(m: ControlPlaneMachine, etcdManaged: boolean): boolean {
  const types = requiredHealthConditions(etcdManaged);
  return (m.health ?? []).some((c) => types.includes(c.type) && c.status === 'False');
}

export interface ScaleDownSelectionOptions {
  /** The Cluster's control-plane failure domains (failure-domains.ts controlPlaneFailureDomains). */
  failureDomains?: readonly string[];
  /** Outdated Machines with unhealthy control-plane components (hasUnhealthyControlPlaneComponents). */
  unhealthy?: (m: Machine) => boolean;
}

/**
 * The Machine to update in place or delete (upstream scale.go selectMachineForInPlaceUpdateOrScaleDown): outdated
 * Machines with the delete-machine annotation, else any Machine with it, else outdated Machines with unhealthy
 * control-plane components (so one broken outdated Machine does not stall the rollout), else outdated Machines, else
 * all; then the oldest in the failure domain with most of them (failure-domains.ts).
 */
export function selectMachineForScaleDown(
  machines: readonly Machine[],
  outdated: readonly Machine[],
  opts: ScaleDownSelectionOptions = {},
): Machine | undefined {
  const marked = (ms: readonly Machine[]) =>
    ms.filter((m) => DELETE_MACHINE_ANNOTATION in (m.metadata.annotations ?? {}));
  const unhealthy = opts.unhealthy ? outdated.filter(opts.unhealthy) : [];
  let candidates: readonly Machine[] = machines;
  if (marked(outdated).length > 0) candidates = marked(outdated);
  else if (marked(machines).length > 0) candidates = marked(machines);
  else if (unhealthy.length > 0) candidates = unhealthy;
  else if (outdated.length > 0) candidates = outdated;
  if (candidates.length === 0) return undefined;
  return machineInFailureDomainWithMostMachines(opts.failureDomains ?? [], machines, candidates);
}

/** Failure domain for a new Machine: see failure-domains.ts nextFailureDomainForScaleUp. */
export function failureDomainForScaleUp(
  domains: readonly string[],
  machines: readonly ControlPlaneMachine[],
): string | undefined {
  const upToDate = machines.filter((m) => m.upToDate && !m.machine.metadata.deletionTimestamp).map((m) => m.machine);
  return nextFailureDomainForScaleUp(
    domains,
    machines.map((m) => m.machine),
    upToDate,
  );
}

/** What a preflight check found blocking (upstream pkg.PreflightCheckResults), for the ScalingUp/Down messages. */
export interface PreflightCheckResults {
  /** Always false here: no ClusterClass topology check (see README Known limits). */
  topologyVersionMismatch?: boolean;
  hasDeletingMachine?: boolean;
  certificateMissing?: boolean;
  controlPlaneComponentsNotHealthy?: boolean;
  etcdClusterNotHealthy?: boolean;
}

export interface PreflightResult {
  ok: boolean;
  /** Why not, for logs and the requeue message. */
  messages: string[];
  results: PreflightCheckResults;
}

/**
 * Preflight checks before any scale operation or in-place update (upstream preflightChecks): no Machine deleting,
 * every other Machine with a Node and its control-plane component (and, with managed etcd, etcd member) health
 * conditions True. `ignore` names a Machine left out of the per-Machine checks (the one about to be deleted or
 * updated). Machines updating in place are not a preflight failure: the reconcile waits for them before it gets here
 * (planReconcile's waitForInPlaceUpdate).
 */
export function preflightChecks(
  machines: readonly ControlPlaneMachine[],
  ignore?: string,
  etcdManaged = true,
  scaleUp?: { certificatesAvailable: boolean },
): PreflightResult {
  const messages: string[] = [];
  const results: PreflightCheckResults = {};
  // Without Machines the control plane is not initialized yet: nothing to check (upstream preflightChecks).
  if (machines.length === 0) return { ok: true, messages, results };
  // A joining Machine needs the cluster certificates (upstream: CertificatesAvailable on the KCP).
  if (scaleUp && !scaleUp.certificatesAvailable)
    return {
      ok: false,
      messages: ['cluster certificates are missing or unknown'],
      results: { certificateMissing: true },
    };
  const deleting = machines
    .filter((m) => m.machine.metadata.deletionTimestamp)
    .map((m) => m.machine.metadata.name ?? '');
  if (deleting.length > 0)
    return {
      ok: false,
      messages: deleting.map((name) => `Machine ${name} is deleting`),
      results: { hasDeletingMachine: true },
    };
  for (const { machine, health } of machines) {
    const name = machine.metadata.name ?? '';
    if (name === ignore) continue;
    if (!machine.status?.nodeRef) {
      messages.push(`Machine ${name} does not have a corresponding Node yet (Machine.status.nodeRef not set)`);
      results.controlPlaneComponentsNotHealthy = true;
      if (etcdManaged) results.etcdClusterNotHealthy = true;
      continue;
    }
    for (const type of requiredHealthConditions(etcdManaged)) {
      const c = health?.find((h) => h.type === type);
      const before = messages.length;
      if (!c) messages.push(`Machine ${name} does not have ${type} condition`);
      else if (c.status === 'False')
        messages.push(`Machine ${name} reports ${type} condition is false (${c.message ?? ''})`);
      else if (c.status === 'Unknown')
        messages.push(`Machine ${name} reports ${type} condition is unknown (${c.message ?? ''})`);
      if (messages.length === before) continue;
      // Upstream checkHealthiness: only EtcdMemberHealthy is about the etcd cluster (EtcdPodHealthy is a component).
      if (type === MACHINE_ETCD_MEMBER_HEALTHY_CONDITION) results.etcdClusterNotHealthy = true;
      else results.controlPlaneComponentsNotHealthy = true;
    }
  }
  return { ok: messages.length === 0, messages, results };
}

/**
 * update-in-progress set but UpdateMachine not pending yet: a trigger that did not complete (upstream
 * MachinesToCompleteTriggerInPlaceUpdate: deleting Machines included).
 */
export const needsTriggerCompletion = (m: Machine): boolean =>
  UPDATE_IN_PROGRESS_ANNOTATION in (m.metadata.annotations ?? {}) && !isPending('UpdateMachine', m);

/**
 * What the reconcile does next. Deleting Machines are part of `machines` (they block through preflight).
 * An interrupted in-place trigger is completed first; while a Machine is updating in place nothing else happens.
 * Rollout: below replicas+maxSurge scale up, else take one outdated Machine: in place if the gate is on, it is
 * eligible and fewer than spec.replicas Machines are up-to-date (upstream rollingUpdate: in place only instead of a
 * deletion that is still needed), else delete it. Without outdated Machines: scale to spec.replicas.
 */
export function planReconcile(
  kcp: KubeadmControlPlane,
  machines: readonly ControlPlaneMachine[],
  inPlaceEnabled: boolean,
  failureDomains: readonly string[] = [],
  inPlaceOnly = false,
): KcpAction {
  if (machines.length === 0) return { type: 'initialize' };
  // Whatever the gate says now: the marker proves a trigger started, and only completing it lets the update finish.
  const incomplete = machines.filter((m) => needsTriggerCompletion(m.machine));
  if (incomplete.length > 0)
    return { type: 'completeInPlaceTrigger', machines: incomplete.map((m) => m.machine.metadata.name ?? '') };
  const updating = machines.filter((m) => isUpdateInProgress(m.machine));
  if (updating.length > 0)
    return { type: 'waitForInPlaceUpdate', machines: updating.map((m) => m.machine.metadata.name ?? '') };

  const replicas = desiredReplicas(kcp);
  const all = machines.map((m) => m.machine);
  const outdated = machines.filter((m) => !m.upToDate && !m.machine.metadata.deletionTimestamp);
  if (outdated.length > 0 && inPlaceOnly)
    return planInPlaceOnlyRollout(kcp, machines, outdated, inPlaceEnabled, failureDomains);
  if (outdated.length > 0) {
    // Never take away the last live Machine: with one replica a rollout always surges.
    const live = all.filter((m) => !m.metadata.deletionTimestamp).length;
    const surge = live <= 1 ? Math.max(1, maxSurge(kcp)) : maxSurge(kcp);
    if (machines.length < replicas + surge) return { type: 'scaleUp', rollout: true };
    const etcdManaged = isEtcdManaged(kcp);
    const unhealthy = new Set(
      outdated.filter((m) => hasUnhealthyControlPlaneComponents(m, etcdManaged)).map((m) => m.machine),
    );
    const selected = selectMachineForScaleDown(
      all.filter((m) => !m.metadata.deletionTimestamp),
      outdated.map((m) => m.machine),
      { failureDomains, unhealthy: (m) => unhealthy.has(m) },
    );
    if (!selected) return { type: 'none' };
    const info = outdated.find((m) => m.machine === selected);
    const upToDateReplicas = machines.filter((m) => m.upToDate).length;
    const tryInPlace = inPlaceEnabled && !!info?.eligibleForInPlaceUpdate && upToDateReplicas < replicas;
    return { type: 'rolloutMachine', machine: selected.metadata.name ?? '', tryInPlace };
  }
  if (machines.length < replicas) return { type: 'scaleUp', rollout: false };
  if (machines.length > replicas) {
    const live = all.filter((m) => !m.metadata.deletionTimestamp);
    if (live.length <= replicas) return { type: 'none' }; // the surplus is already being deleted
    const selected = selectMachineForScaleDown(live, [], { failureDomains });
    return selected ? { type: 'scaleDown', machine: selected.metadata.name ?? '' } : { type: 'none' };
  }
  return { type: 'none' };
}

/**
 * A rollout under the InPlaceOnly policy: no surge, and the selected outdated Machine is updated in place or held
 * back, never deleted for the rollout. Below spec.replicas (e.g. after a remediation) the scale up still happens, from
 * the current spec: KCP has no other, and a missing etcd member costs fault tolerance. Above it, the surplus goes.
 */
function planInPlaceOnlyRollout(
  kcp: KubeadmControlPlane,
  machines: readonly ControlPlaneMachine[],
  outdated: readonly ControlPlaneMachine[],
  inPlaceEnabled: boolean,
  failureDomains: readonly string[],
): KcpAction {
  const replicas = desiredReplicas(kcp);
  if (machines.length < replicas) return { type: 'scaleUp', rollout: false };
  const live = machines.map((m) => m.machine).filter((m) => !m.metadata.deletionTimestamp);
  const etcdManaged = isEtcdManaged(kcp);
  const unhealthy = new Set(
    outdated.filter((m) => hasUnhealthyControlPlaneComponents(m, etcdManaged)).map((m) => m.machine),
  );
  const selected = selectMachineForScaleDown(
    live,
    outdated.map((m) => m.machine),
    { failureDomains, unhealthy: (m) => unhealthy.has(m) },
  );
  if (!selected) return { type: 'none' };
  if (live.length > replicas) return { type: 'scaleDown', machine: selected.metadata.name ?? '' };
  const info = outdated.find((m) => m.machine === selected);
  const tryInPlace = inPlaceEnabled && !!info?.eligibleForInPlaceUpdate;
  return { type: 'rolloutMachine', machine: selected.metadata.name ?? '', tryInPlace, inPlaceOnly: true };
}
