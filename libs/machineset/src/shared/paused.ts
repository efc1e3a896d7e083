// The Paused step of the MachineSet and MachineDeployment reconciles (upstream Reconcile: paused.EnsurePausedCondition
// right after the finalizer): while the Cluster has spec.paused or the object the paused annotation, nothing else is
// done, deletion included; the Paused condition says why.
import {
  CLUSTER_API_VERSION,
  NOT_PAUSED_REASON,
  PAUSED_CONDITION,
  ensurePaused,
  setCondition,
  type Cluster,
  type Condition,
  type ConditionInput,
} from '@capi/api';
import type { KubeObject, PassiveClock } from '@capi/apimachinery';
import type { Client, ReconcileContext } from '@capi/controller-runtime';
import { deferUntilCached } from './writes';

type Paused = KubeObject & {
  spec: { clusterName: string };
  status?: { conditions?: Condition[] };
};

/** What the status of an object that got past the Paused step carries (upstream sets it with the rest of the status). */
export const NOT_PAUSED: ConditionInput = { type: PAUSED_CONDITION, status: 'False', reason: NOT_PAUSED_REASON };

/**
 * True when the reconcile ends here: paused, or the Paused condition changed and was written (the write's event
 * brings the next reconcile, as upstream's requeue). `writeConditions` writes the object's status conditions.
 */
export async function stopForPause<T extends Paused>(
  client: Client,
  ctx: ReconcileContext,
  obj: T,
  clock: PassiveClock,
  writeConditions: (conditions: Condition[]) => Promise<KubeObject | undefined>,
): Promise<boolean> {
  const cluster = await client.tryGet<Cluster>({
    apiVersion: CLUSTER_API_VERSION,
    kind: 'Cluster',
    namespace: obj.metadata.namespace,
    name: obj.spec.clusterName,
  });
  const pause = ensurePaused(obj, cluster?.spec?.paused === true);
  if (pause.action === 'write') {
    ctx.log.log(pause.paused ? `Pausing reconciliation: ${pause.condition.message}` : 'Unpausing reconciliation');
    deferUntilCached(ctx, obj, await writeConditions(setCondition(obj.status?.conditions, pause.condition, clock)));
    return true;
  }
  return pause.paused;
}
