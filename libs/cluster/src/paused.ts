// The Cluster's own Paused condition (upstream util/paused EnsurePausedCondition with the Cluster as the object).
import { ensurePaused, type Cluster } from '@capi/api';

export interface PausedDecision {
  paused: boolean;
  condition: { type: string; status: 'True' | 'False'; reason: string; message?: string; observedGeneration?: number };
  /** The stored condition differs in more than observedGeneration: write it and end the reconcile (upstream requeue). */
  changed: boolean;
}

export function decidePaused(cluster: Cluster): PausedDecision {
  // The Cluster is its own Cluster: its spec.paused and its annotation (upstream passes it as both).
  const d = ensurePaused({ ...cluster, kind: 'Cluster' }, cluster.spec?.paused === true);
  return { paused: d.paused, condition: d.condition as PausedDecision['condition'], changed: d.action === 'write' };
}
