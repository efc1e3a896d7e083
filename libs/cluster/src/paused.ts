// The Cluster's own Paused condition (upstream util/paused EnsurePausedCondition with the Cluster as the object).
import {
  PAUSED_ANNOTATION,
  PAUSED_CONDITION,
  PAUSED_REASON,
  NOT_PAUSED_REASON,
  type Cluster,
  type Condition,
} from '@capi/api';

export interface PausedDecision {
  paused: boolean;
  condition: { type: string; status: 'True' | 'False'; reason: string; message?: string; observedGeneration?: number };
  /** The stored condition differs in more than observedGeneration: write it and end the reconcile (upstream requeue). */
  changed: boolean;
}

export function decidePaused(cluster: Cluster): PausedDecision {
  const messages: string[] = [];
  if (cluster.spec?.paused === true) messages.push('Cluster spec.paused is set to true');
  if (PAUSED_ANNOTATION in (cluster.metadata.annotations ?? {}))
    messages.push(`Cluster has the ${PAUSED_ANNOTATION} annotation`);
  const observedGeneration = cluster.metadata.generation;
  const condition: PausedDecision['condition'] = messages.length
    ? {
        type: PAUSED_CONDITION,
        status: 'True',
        reason: PAUSED_REASON,
        message: messages.join(', '),
        observedGeneration,
      }
    : { type: PAUSED_CONDITION, status: 'False', reason: NOT_PAUSED_REASON, observedGeneration };
  const old = (cluster.status?.conditions ?? []).find((c: Condition) => c.type === PAUSED_CONDITION);
  const sameState =
    !!old &&
    old.status === condition.status &&
    old.reason === condition.reason &&
    (old.message ?? '') === (condition.message ?? '');
  const paused = messages.length > 0;
  // Only observedGeneration moved on an unpaused Cluster: set with the rest of the status, no extra reconcile.
  return { paused, condition, changed: !sameState || (paused && old?.observedGeneration !== observedGeneration) };
}
