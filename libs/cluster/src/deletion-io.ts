// Carries out decideDeletion (deletion.ts): deletes what it names, records the Deleting reason and message on the
// scope, drops the finalizer from the working copy once everything is gone (upstream reconcileDelete's writes).
import { CLUSTER_FINALIZER } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import { isNotFound, type Client, type EventRecorder, type ReconcileLogger } from '@capi/controller-runtime';
import { CHECK_LOGS_MESSAGE, CLUSTER_DELETING_INTERNAL_ERROR_REASON, decideDeletion } from './deletion';
import type { ClusterScope } from './scope';

export interface DeletionDeps {
  client: Client;
  events: EventRecorder;
  log: ReconcileLogger;
}

const describe = (o: KubeObject) => `${o.kind} ${o.metadata.name}`;

export async function reconcileClusterDelete(
  s: ClusterScope,
  deps: DeletionDeps,
  hooksGated: boolean,
): Promise<{ requeueAfterMs?: number; error?: Error }> {
  const cluster = s.cluster;
  const decision = decideDeletion(s, hooksGated);
  s.deletingReason = decision.reason;
  s.deletingMessage = decision.message;
  if (decision.log) deps.log.log(decision.log);

  const errors: string[] = [];
  for (const obj of decision.toDelete) {
    deps.log.log(`Deleting ${describe(obj)}`);
    try {
      await deps.client.delete({
        apiVersion: obj.apiVersion,
        kind: obj.kind,
        namespace: obj.metadata.namespace,
        name: obj.metadata.name!,
      });
    } catch (e) {
      if (isNotFound(e)) continue;
      errors.push(
        `error deleting cluster ${cluster.metadata.namespace}/${cluster.metadata.name}: failed to delete ${obj.apiVersion} ${describe(obj)}: ${(e as Error).message}`,
      );
    }
  }
  if (errors.length) {
    s.deletingReason = CLUSTER_DELETING_INTERNAL_ERROR_REASON;
    s.deletingMessage = CHECK_LOGS_MESSAGE;
    for (const e of errors) deps.log.error(e);
    return { error: new Error(errors.join('; ')) };
  }
  if (decision.done) {
    cluster.metadata.finalizers = (cluster.metadata.finalizers ?? []).filter((f) => f !== CLUSTER_FINALIZER);
    void deps.events.event(cluster, 'Normal', 'Deleted', `Cluster ${cluster.metadata.name} has been deleted`);
  }
  return { requeueAfterMs: decision.requeueAfterMs };
}
