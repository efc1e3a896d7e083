// What MHC asserts on a target Machine's status.conditions (upstream patchHealthyTargets / patchUnhealthyTargets).
// The conditions are server-side applied by MHC's field manager, so every apply carries each condition MHC still
// stands behind: leaving one out would make the API server remove it.
import type { PassiveClock } from '@capi/apimachinery';
import {
  HEALTH_CHECK_SUCCEEDED_CONDITION,
  HEALTH_CHECK_SUCCEEDED_REASON,
  OWNER_REMEDIATED_CONDITION,
  WAITING_FOR_REMEDIATION_REASON,
  getCondition,
  setCondition,
  type Condition,
  type Machine,
} from '@capi/api';
import type { TargetHealth } from './evaluate';

export const WAITING_FOR_REMEDIATION_MESSAGE = 'Waiting for remediation';

export interface MarkingContext {
  /** RemediationAllowed (triggerIf) holds for the MachineHealthCheck. */
  remediationAllowed: boolean;
  /** The Cluster is paused: mark, but don't ask for remediation. */
  clusterPaused: boolean;
  clock: PassiveClock;
}

export interface MachineMarking {
  /** The conditions to apply (complete, with lastTransitionTime). */
  conditions: Condition[];
  /** False when the Machine already shows exactly these conditions (no write needed). */
  changed: boolean;
  /** OwnerRemediated=False is newly requested by this marking. */
  remediationRequested: boolean;
}

const isMhcWaitingMarker = (c: Condition | undefined): boolean =>
  c?.status === 'False' && c.reason === WAITING_FOR_REMEDIATION_REASON;

/** Pure: the HealthCheckSucceeded / OwnerRemediated conditions MHC wants on `machine` for `health`. */
export function decideMachineMarking(
  machine: Pick<Machine, 'metadata' | 'status'>,
  health: TargetHealth,
  ctx: MarkingContext,
): MachineMarking {
  const current = machine.status?.conditions ?? [];
  const observedGeneration = machine.metadata.generation;
  let next: Condition[] = [...current];
  const asserted = new Set<string>();

  const existingHcs = getCondition(current, HEALTH_CHECK_SUCCEEDED_CONDITION);
  if (health.state === 'Healthy') {
    next = setCondition(
      next,
      {
        type: HEALTH_CHECK_SUCCEEDED_CONDITION,
        status: 'True',
        reason: HEALTH_CHECK_SUCCEEDED_REASON,
        observedGeneration,
      },
      ctx.clock,
    );
    asserted.add(HEALTH_CHECK_SUCCEEDED_CONDITION);
  } else if (health.state === 'Unhealthy') {
    next = setCondition(
      next,
      {
        type: HEALTH_CHECK_SUCCEEDED_CONDITION,
        status: 'False',
        reason: health.reason,
        message: health.message,
        observedGeneration,
      },
      ctx.clock,
    );
    asserted.add(HEALTH_CHECK_SUCCEEDED_CONDITION);
  } else if (existingHcs) {
    // Pending / updating in place: keep what was reported last (upstream leaves the Machine untouched).
    asserted.add(HEALTH_CHECK_SUCCEEDED_CONDITION);
  }

  // MHC creates OwnerRemediated=False when missing (or when a previous remediation completed, True); while a
  // remediation is in progress the owner controls the condition and MHC must not overwrite it.
  const existingOr = getCondition(current, OWNER_REMEDIATED_CONDITION);
  let remediationRequested = false;
  const mayRequest =
    health.state === 'Unhealthy' && ctx.remediationAllowed && !ctx.clusterPaused && !machine.metadata.deletionTimestamp;
  if (mayRequest && (!existingOr || existingOr.status === 'True')) {
    next = setCondition(
      next,
      {
        type: OWNER_REMEDIATED_CONDITION,
        status: 'False',
        reason: WAITING_FOR_REMEDIATION_REASON,
        message: WAITING_FOR_REMEDIATION_MESSAGE,
        observedGeneration,
      },
      ctx.clock,
    );
    asserted.add(OWNER_REMEDIATED_CONDITION);
    remediationRequested = true;
  } else if (isMhcWaitingMarker(existingOr)) {
    asserted.add(OWNER_REMEDIATED_CONDITION); // still waiting: keep it
  }

  const conditions = next.filter((c) => asserted.has(c.type));
  const changed = conditions.some((c) => c !== getCondition(current, c.type));
  return { conditions, changed, remediationRequested };
}
