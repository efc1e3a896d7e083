// Cluster API util/paused EnsurePausedCondition: an object is paused while its Cluster has spec.paused or it carries
// the paused annotation itself; its Paused condition says which, and a reconcile does nothing else while it is True.
import type { Condition, ConditionInput } from './conditions';
import { NOT_PAUSED_REASON, PAUSED_ANNOTATION, PAUSED_CONDITION, PAUSED_REASON } from './constants';

export interface PausedObject {
  kind?: string;
  metadata: { generation?: number; annotations?: Record<string, string> };
  status?: { conditions?: Condition[] };
}

export interface EnsurePaused {
  paused: boolean;
  condition: ConditionInput;
  /**
   * 'none': the condition is as it should be; 'set': only its observedGeneration moved on an unpaused object (set it
   * with the rest of the status, no extra reconcile); 'write': write it now and end the reconcile (upstream requeue).
   */
  action: 'none' | 'set' | 'write';
}

/** The Paused condition of `obj` under a Cluster with `clusterPaused` (spec.paused; a missing Cluster is not paused). */
export function ensurePaused(obj: PausedObject, clusterPaused: boolean): EnsurePaused {
  const messages: string[] = [];
  if (clusterPaused) messages.push('Cluster spec.paused is set to true');
  if (PAUSED_ANNOTATION in (obj.metadata.annotations ?? {}))
    messages.push(`${obj.kind ?? 'Object'} has the ${PAUSED_ANNOTATION} annotation`);
  const paused = messages.length > 0;
  const observedGeneration = obj.metadata.generation;
  const condition: ConditionInput = paused
    ? {
        type: PAUSED_CONDITION,
        status: 'True',
        reason: PAUSED_REASON,
        message: messages.join(', '),
        observedGeneration,
      }
    : { type: PAUSED_CONDITION, status: 'False', reason: NOT_PAUSED_REASON, observedGeneration };
  const old = obj.status?.conditions?.find((c) => c.type === PAUSED_CONDITION);
  const sameExceptGeneration =
    !!old &&
    old.status === condition.status &&
    old.reason === condition.reason &&
    (old.message ?? '') === (condition.message ?? '');
  if (sameExceptGeneration && old.observedGeneration === observedGeneration)
    return { paused, condition, action: 'none' };
  if (sameExceptGeneration && !paused) return { paused, condition, action: 'set' };
  return { paused, condition, action: 'write' };
}
