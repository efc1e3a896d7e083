// MachineSet remediation of Machines marked by MachineHealthCheck (upstream machineset_controller.go
// reconcileUnhealthyMachines), as a pure decision: which Machines are deleted now, which wait, and the
// OwnerRemediated condition each one gets. The regular scale up then creates the replacements.
import {
  HEALTH_CHECK_SUCCEEDED_CONDITION,
  MACHINE_DEPLOYMENT_NAME_LABEL,
  OWNER_REMEDIATED_CONDITION,
  PAUSED_ANNOTATION,
  REMEDIATE_MACHINE_ANNOTATION,
  REVISION_ANNOTATION,
  getCondition,
  isFalse,
  isTrue,
  type Cluster,
  type ConditionInput,
  type Machine,
  type MachineDeployment,
  type MachineSet,
  isMachineToBeRemediated,
  ownerRemediatingCondition,
} from '@capi/api';
import { blocksReplacements, ROLLOUT_BLOCKED_CONDITION, rolloutPolicyOf } from '@capi/inplace';
import { scaledValueFromIntOrPercent } from '../rollout';

// OwnerRemediated reasons the MachineSet controller writes (upstream v1beta2 MachineSetMachine...Reason).
export const MACHINESET_MACHINE_CANNOT_BE_REMEDIATED_REASON = 'CannotBeRemediated';
export const MACHINESET_MACHINE_REMEDIATION_DEFERRED_REASON = 'RemediationDeferred';
export const MACHINESET_MACHINE_REMEDIATION_MACHINE_DELETING_REASON = 'MachineDeleting';
/** Reasons only this controller writes: an OwnerRemediated with one of these is ours to clean up. */
export const MACHINESET_OWNER_REMEDIATED_REASONS: ReadonlySet<string> = new Set([
  MACHINESET_MACHINE_CANNOT_BE_REMEDIATED_REASON,
  MACHINESET_MACHINE_REMEDIATION_DEFERRED_REASON,
  MACHINESET_MACHINE_REMEDIATION_MACHINE_DELETING_REASON,
]);

// MachineSet Remediating condition reasons.
export {
  REMEDIATING_REASON as MACHINESET_REMEDIATING_REASON,
  NOT_REMEDIATING_REASON as MACHINESET_NOT_REMEDIATING_REASON,
} from '@capi/api';

export const MACHINE_DELETING_MESSAGE = 'Machine is deleting';
export const PENDING_ROLLOUT_MESSAGE = "Machine won't be remediated because it is pending removal due to rollout";

export class RemediationConfigError extends Error {
  readonly reason = 'InvalidRemediationMaxInFlight';
  constructor(message: string) {
    super(message);
    this.name = 'RemediationConfigError';
  }
}

export interface OwnerRemediatedUpdate {
  machine: Machine;
  reason: string;
  message: string;
}

export interface RemediationPlan {
  /** Why nothing is done at all (paused); undefined when the plan below applies. */
  skipped?: string;
  /** Healthy again (and not deleting) but still carrying an OwnerRemediated this controller wrote: give it up. */
  cleanup: Machine[];
  /** OwnerRemediated=False to write, in order; `toDelete` Machines carry MachineDeleting and are deleted after. */
  conditions: OwnerRemediatedUpdate[];
  /** Machines to delete now (their condition is written first, so a failed delete is retried next reconcile). */
  toDelete: Machine[];
  /** The effective limit (Infinity when unlimited), for logs. */
  maxInFlight: number;
}

export interface RemediationInput {
  ms: MachineSet;
  /** The controlling MachineDeployment, if any. */
  md: MachineDeployment | undefined;
  cluster: Cluster | undefined;
  /** The Machines the MS counts (already filtered to the ones it owns). */
  machines: readonly Machine[];
}

/** MHC found a problem and asks the owner to act (upstream collections.IsUnhealthyAndOwnerRemediated). */
export const isUnhealthyAndOwnerRemediated = isMachineToBeRemediated;

/** Deleting because this controller remediated it: still in flight until the Machine is gone. */
const isRemediationInFlight = (m: Machine): boolean => {
  const c = getCondition(m, OWNER_REMEDIATED_CONDITION);
  return (
    !!m.metadata.deletionTimestamp &&
    c?.status === 'False' &&
    c.reason === MACHINESET_MACHINE_REMEDIATION_MACHINE_DELETING_REASON
  );
};

const needsCleanup = (m: Machine): boolean =>
  !m.metadata.deletionTimestamp &&
  isTrue(m, HEALTH_CHECK_SUCCEEDED_CONDITION) &&
  isFalse(m, OWNER_REMEDIATED_CONDITION) &&
  MACHINESET_OWNER_REMEDIATED_REASONS.has(getCondition(m, OWNER_REMEDIATED_CONDITION)?.reason ?? '');

/** Why remediation is skipped (Cluster spec.paused or the paused annotation on the MS), else undefined. */
export function remediationPausedReason(ms: MachineSet, cluster: Cluster | undefined): string | undefined {
  if (cluster?.spec?.paused) return 'Cluster spec.paused is set to true';
  if (ms.metadata.annotations?.[PAUSED_ANNOTATION] !== undefined)
    return `MachineSet has the ${PAUSED_ANNOTATION} annotation`;
  return undefined;
}

/** spec.remediation.maxInFlight of the MD resolved against its replicas (percent rounds up); unlimited when unset. */
export function remediationMaxInFlight(md: MachineDeployment | undefined): number {
  const value = md?.spec.remediation?.maxInFlight;
  if (value === undefined || value === null) return Number.POSITIVE_INFINITY;
  try {
    return scaledValueFromIntOrPercent(value, md?.spec.replicas ?? 1, true);
  } catch (e) {
    throw new RemediationConfigError(`failed to calculate maxInFlight to remediate machines: ${(e as Error).message}`);
  }
}

const created = (m: Machine): number =>
  m.metadata.creationTimestamp ? Date.parse(m.metadata.creationTimestamp) || 0 : 0;

/**
 * Machines with the remediate-machine annotation first, then newest first (a Machine failing to come up likely
 * hosts no workloads), then by name.
 */
export function sortMachinesToRemediate(machines: readonly Machine[]): Machine[] {
  const annotated = (m: Machine) => (m.metadata.annotations?.[REMEDIATE_MACHINE_ANNOTATION] !== undefined ? 1 : 0);
  return [...machines].sort(
    (a, b) =>
      annotated(b) - annotated(a) ||
      created(b) - created(a) ||
      ((a.metadata.name ?? '') < (b.metadata.name ?? '')
        ? -1
        : (a.metadata.name ?? '') > (b.metadata.name ?? '')
          ? 1
          : 0),
  );
}

const deferredMessage = (md: MachineDeployment | undefined) =>
  `Waiting because there are already too many remediations in progress (spec.strategy.remediation.maxInFlight is ${md?.spec.remediation?.maxInFlight})`;

/** The MD's InPlaceOnly policy holds its rollout back (RolloutBlocked True, this project's extension). */
function rolloutHeldBack(md: MachineDeployment | undefined): boolean {
  return !!md && blocksReplacements(rolloutPolicyOf(md)) && isTrue(md, ROLLOUT_BLOCKED_CONDITION);
}

/** Pure: what the MachineSet does about its unhealthy Machines in this reconcile. */
export function planRemediation(input: RemediationInput): RemediationPlan {
  const { ms, md, cluster, machines } = input;
  const plan: RemediationPlan = { cleanup: [], conditions: [], toDelete: [], maxInFlight: Number.POSITIVE_INFINITY };
  const paused = remediationPausedReason(ms, cluster);
  if (paused) return { ...plan, skipped: paused };

  plan.cleanup = machines.filter(needsCleanup);
  // Machines already deleting need no new remediation (and updating in place does not matter: they are remediated too).
  const candidates = machines.filter((m) => isUnhealthyAndOwnerRemediated(m) && !m.metadata.deletionTimestamp);
  if (candidates.length === 0) return plan;

  const withCondition = (list: readonly Machine[], reason: string, message: string) =>
    list.map((machine) => ({ machine, reason, message }));
  // A MachineSet of a MachineDeployment remediates only while it is the current revision: old ones are being
  // rolled out anyway. Not when the InPlaceOnly policy holds the rollout back: then they are not, and their
  // replacement comes from their own template (the held-back change is not carried in).
  if (ms.metadata.labels?.[MACHINE_DEPLOYMENT_NAME_LABEL] !== undefined) {
    if (
      (md?.metadata.annotations?.[REVISION_ANNOTATION] ?? '') !==
        (ms.metadata.annotations?.[REVISION_ANNOTATION] ?? '') &&
      !rolloutHeldBack(md)
    ) {
      plan.conditions = withCondition(
        candidates,
        MACHINESET_MACHINE_CANNOT_BE_REMEDIATED_REASON,
        PENDING_ROLLOUT_MESSAGE,
      );
      return plan;
    }
    plan.maxInFlight = remediationMaxInFlight(md);
  }

  const available = plan.maxInFlight - machines.filter(isRemediationInFlight).length;
  const sorted = sortMachinesToRemediate(candidates);
  const now = available > 0 ? sorted.slice(0, available) : [];
  const deferred = sorted.slice(now.length);
  plan.conditions = [
    ...withCondition(deferred, MACHINESET_MACHINE_REMEDIATION_DEFERRED_REASON, deferredMessage(md)),
    ...withCondition(now, MACHINESET_MACHINE_REMEDIATION_MACHINE_DELETING_REASON, MACHINE_DELETING_MESSAGE),
  ];
  plan.toDelete = now;
  return plan;
}

/** MachineSet Remediating: True while Machines are to be remediated (their OwnerRemediated aggregated), else False. */
export function remediatingCondition(machines: readonly Machine[]): ConditionInput {
  return ownerRemediatingCondition(machines, 'MachineSet');
}
