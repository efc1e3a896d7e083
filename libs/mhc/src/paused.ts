// Paused condition of a MachineHealthCheck (upstream util/paused EnsurePausedCondition).
import { PAUSED_ANNOTATION, PAUSED_CONDITION, PAUSED_REASON, NOT_PAUSED_REASON, type ConditionInput } from '@capi/api';

export function pausedCondition(
  clusterPaused: boolean,
  mhcAnnotations: Record<string, string> | undefined,
): ConditionInput & { paused: boolean } {
  const messages: string[] = [];
  if (clusterPaused) messages.push('Cluster spec.paused is set to true');
  if (PAUSED_ANNOTATION in (mhcAnnotations ?? {}))
    messages.push(`MachineHealthCheck has the ${PAUSED_ANNOTATION} annotation`);
  return messages.length
    ? { paused: true, type: PAUSED_CONDITION, status: 'True', reason: PAUSED_REASON, message: messages.join(', ') }
    : { paused: false, type: PAUSED_CONDITION, status: 'False', reason: NOT_PAUSED_REASON };
}
