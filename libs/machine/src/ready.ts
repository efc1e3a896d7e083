// The Machine Ready condition: a summary of the Machine's own conditions (upstream setReadyCondition with
// machineConditionCustomMergeStrategy, calculateDeletingConditionForSummary, transformControlPlaneAndEtcdConditions).
import {
  BOOTSTRAP_CONFIG_READY_CONDITION,
  DELETING_CONDITION,
  DELETING_REASON,
  HEALTH_CHECK_SUCCEEDED_CONDITION,
  INFRASTRUCTURE_READY_CONDITION,
  NODE_HEALTHY_CONDITION,
  NOT_READY_REASON,
  READY_CONDITION,
  READY_REASON,
  UPDATING_CONDITION,
  drainDelayReasons,
  getCondition,
  isStaleDeletion,
  summarize,
  type Condition,
  type ConditionInput,
  type MergePriority,
} from '@capi/api';
import type { MachineObject } from './types';

export const READY_UNKNOWN_REASON = 'ReadyUnknown';

// Reasons that are expected while a Machine is being deleted: its objects go away one after the other.
const GONE_WHILE_DELETING: Record<string, readonly string[]> = {
  [BOOTSTRAP_CONFIG_READY_CONDITION]: ['Deleted', 'DoesNotExist'],
  [INFRASTRUCTURE_READY_CONDITION]: ['Deleted', 'DoesNotExist'],
  [NODE_HEALTHY_CONDITION]: ['NodeDeleted', 'NodeDoesNotExist'],
};

/**
 * Deleting condition as shown in the summary: the stage only, so that Ready messages of many Machines aggregate
 * well on their MachineSet; "more than 15m" (and likely drain blockers) once deletion takes long.
 */
export function deletingConditionForSummary(
  machine: MachineObject,
  conditions: readonly Condition[],
  nowMs: number,
): Condition {
  const deleting = getCondition(conditions, DELETING_CONDITION);
  let message = 'Machine deletion in progress';
  if (deleting) {
    message = `Machine deletion in progress, stage: ${deleting.reason}`;
    if (isStaleDeletion(machine.metadata.deletionTimestamp, nowMs)) {
      message = `Machine deletion in progress since more than 15m, stage: ${deleting.reason}`;
      const delays = drainDelayReasons(deleting, machine.status?.deletion?.nodeDrainStartTime, nowMs);
      if (delays.length) message += `, delay likely due to ${delays.join(', ')}`;
    }
  }
  return {
    type: DELETING_CONDITION,
    status: 'True',
    reason: DELETING_REASON,
    message,
    lastTransitionTime: deleting?.lastTransitionTime ?? '',
  };
}

const CONTROL_PLANE_PREFIXES = ['* APIServer', '* ControllerManager', '* Scheduler'];
const isControlPlaneComponent = (name: string) =>
  CONTROL_PLANE_PREFIXES.some((p) => name.startsWith(p)) || name === '* EtcdPodHealthy';

/** Groups control plane component lines ("* APIServerPodHealthy: x", ...) into one when they all say the same. */
export function groupControlPlaneComponentMessages(lines: string[]): string[] {
  const out: string[] = [];
  let shared: string | undefined;
  let count = 0;
  for (const line of lines) {
    const sep = line.indexOf(':');
    if (sep === -1 || !isControlPlaneComponent(line.slice(0, sep))) {
      out.push(line);
      continue;
    }
    const msg = line.slice(sep + 1);
    if (shared === undefined) {
      shared = msg;
      out.push(`* Control plane components:${msg}`);
    } else if (shared !== msg) {
      return lines;
    }
    count++;
  }
  return count === 1 ? lines : out;
}

/**
 * Ready summary over Deleting, Updating (both negative polarity), BootstrapConfigReady, InfrastructureReady,
 * NodeHealthy, HealthCheckSucceeded (when reported) and the readiness gates. `conditions` must already hold this
 * reconcile's Deleting and Updating conditions.
 */
export function readyCondition(
  machine: MachineObject,
  conditions: readonly Condition[],
  nowMs: number,
): ConditionInput {
  // Upstream setReadyCondition's defaultReadinessGates, in its order (the order of the summary's messages).
  const types = [
    DELETING_CONDITION,
    UPDATING_CONDITION,
    BOOTSTRAP_CONFIG_READY_CONDITION,
    INFRASTRUCTURE_READY_CONDITION,
    NODE_HEALTHY_CONDITION,
    HEALTH_CHECK_SUCCEEDED_CONDITION,
  ];
  const negativePolarity = [DELETING_CONDITION, UPDATING_CONDITION];
  for (const gate of machine.spec.readinessGates ?? []) {
    types.push(gate.conditionType);
    if (gate.polarity === 'Negative') negativePolarity.push(gate.conditionType);
  }
  const deleting = Boolean(machine.metadata.deletionTimestamp);
  const priority = (c: Condition): MergePriority | undefined =>
    deleting && GONE_WHILE_DELETING[c.type]?.includes(c.reason) ? 'Info' : undefined;
  return summarize(conditions, {
    targetType: READY_CONDITION,
    forConditionTypes: types,
    negativePolarity,
    ignoreTypesIfMissing: [HEALTH_CHECK_SUCCEEDED_CONDITION],
    overrides: deleting ? [deletingConditionForSummary(machine, conditions, nowMs)] : undefined,
    priority,
    transformMessages: groupControlPlaneComponentMessages,
    reasons: { issue: NOT_READY_REASON, unknown: READY_UNKNOWN_REASON, info: READY_REASON },
  });
}
