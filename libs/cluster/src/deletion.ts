// What deleting a Cluster does next, as upstream's reconcileDelete (core/reconcilers/cluster/cluster_controller.go):
// first the descendants it owns (MachineDeployments, MachineSets, worker Machines), waiting until every descendant is
// gone; then the control plane object; then the infrastructure cluster; then the finalizer goes. Pure; the reconciler
// does the deletes.
import type { KubeObject } from '@capi/apimachinery';
import { filterOwnedDescendants, objectsPendingDeleteCount, objectsPendingDeleteNames } from './descendants';
import type { ClusterScope } from './scope';

// Deleting condition reasons (upstream api/core/v1beta2/cluster_types.go).
export const CLUSTER_DELETING_WAITING_FOR_BEFORE_DELETE_HOOK_REASON = 'WaitingForBeforeDeleteHook';
export const CLUSTER_DELETING_WAITING_FOR_WORKERS_DELETION_REASON = 'WaitingForWorkersDeletion';
export const CLUSTER_DELETING_WAITING_FOR_CONTROL_PLANE_DELETION_REASON = 'WaitingForControlPlaneDeletion';
export const CLUSTER_DELETING_WAITING_FOR_INFRASTRUCTURE_DELETION_REASON = 'WaitingForInfrastructureDeletion';
export const CLUSTER_DELETING_DELETION_COMPLETED_REASON = 'DeletionCompleted';
export const CLUSTER_DELETING_INTERNAL_ERROR_REASON = 'InternalError';
/** upstream's message for every InternalError of the deletion. */
export const CHECK_LOGS_MESSAGE = 'Please check controller logs for errors';
/** How long to wait before checking again whether descendants are gone (upstream deleteRequeueAfter). */
export const DELETE_REQUEUE_AFTER_MS = 5_000;
/** upstream runtimev1.OkToDeleteAnnotation: the BeforeClusterDelete hook let the deletion go on. */
export const OK_TO_DELETE_ANNOTATION = 'runtime.cluster.x-k8s.io/ok-to-delete';

export interface DeletionDecision {
  /** Delete these now (descendants, or the control plane / infrastructure cluster); none already deleting. */
  toDelete: KubeObject[];
  reason: string;
  message: string;
  requeueAfterMs?: number;
  /** Everything is gone: remove the finalizer. */
  done: boolean;
  /** Log line upstream writes at info level. */
  log?: string;
}

const notDeleting = (o: KubeObject) => !o.metadata.deletionTimestamp;

/**
 * The next deletion step. `hooksGated`: RuntimeSDK and ClusterTopology are both enabled (a Cluster with a topology
 * then waits for the BeforeClusterDelete hook's ok-to-delete annotation).
 */
export function decideDeletion(s: ClusterScope, hooksGated = false): DeletionDecision {
  const cluster = s.cluster;
  const wait = (reason: string, message: string, more: Partial<DeletionDecision> = {}): DeletionDecision => ({
    toDelete: [],
    reason,
    message,
    done: false,
    ...more,
  });
  if (hooksGated && cluster.spec?.topology && !(OK_TO_DELETE_ANNOTATION in (cluster.metadata.annotations ?? {})))
    return wait(CLUSTER_DELETING_WAITING_FOR_BEFORE_DELETE_HOOK_REASON, 'Waiting for BeforeClusterDelete hook');
  if (!s.getDescendantsSucceeded) return wait(CLUSTER_DELETING_INTERNAL_ERROR_REASON, CHECK_LOGS_MESSAGE);

  const children = filterOwnedDescendants(s.descendants, cluster);
  const pending = objectsPendingDeleteCount(s.descendants, cluster);
  if (pending > 0) {
    const names = objectsPendingDeleteNames(s.descendants, cluster);
    return wait(CLUSTER_DELETING_WAITING_FOR_WORKERS_DELETION_REASON, names.map((n) => `* ${n}`).join('\n'), {
      toDelete: children.filter(notDeleting),
      requeueAfterMs: DELETE_REQUEUE_AFTER_MS,
      log: `Cluster still has descendants - need to requeue: ${names.join('; ')} (indirect descendants count ${pending - children.length})`,
    });
  }

  const stage = (
    ref: { kind: string; name: string } | undefined,
    obj: KubeObject | undefined,
    notFound: boolean,
    reason: string,
    what: string,
  ): DeletionDecision | undefined => {
    if (!ref) return undefined;
    // A read error other than NotFound: do not go on (the phase that read it reports the error).
    if (!obj && !notFound) return wait(CLUSTER_DELETING_INTERNAL_ERROR_REASON, CHECK_LOGS_MESSAGE);
    if (!obj) return undefined;
    return wait(reason, `Waiting for ${ref.kind} to be deleted`, {
      toDelete: [obj].filter(notDeleting),
      log: `Cluster still has descendants - waiting for ${what} deletion: ${ref.kind} ${cluster.metadata.namespace}/${ref.name}`,
    });
  };
  return (
    stage(
      cluster.spec?.controlPlaneRef,
      s.controlPlane,
      s.controlPlaneIsNotFound,
      CLUSTER_DELETING_WAITING_FOR_CONTROL_PLANE_DELETION_REASON,
      'control plane',
    ) ??
    stage(
      cluster.spec?.infrastructureRef,
      s.infraCluster,
      s.infraClusterIsNotFound,
      CLUSTER_DELETING_WAITING_FOR_INFRASTRUCTURE_DELETION_REASON,
      'infrastructure cluster',
    ) ?? { toDelete: [], reason: CLUSTER_DELETING_DELETION_COMPLETED_REASON, message: 'Deletion completed', done: true }
  );
}
