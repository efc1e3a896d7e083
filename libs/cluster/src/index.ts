export { type ClusterDescendants, type ClusterScope, emptyDescendants } from './scope';
export { type ClusterPhase, type ClusterStatusInputs, type ClusterStatusResult, computeClusterStatus } from './status';
export { ClusterControllerModule } from './cluster-controller.module';
export { ClusterReconciler } from './cluster.reconciler';
export {
  CLUSTER_CONTROLLER_NAME,
  CLUSTER_CONTROLLER_OPTIONS,
  CLUSTER_FIELD_MANAGER,
  type ClusterControllerOptions,
  DEFAULT_REMOTE_CONNECTION_GRACE_PERIOD_MS,
} from './options';
export {
  CLUSTER_DELETING_DELETION_COMPLETED_REASON,
  CLUSTER_DELETING_INTERNAL_ERROR_REASON,
  CLUSTER_DELETING_WAITING_FOR_BEFORE_DELETE_HOOK_REASON,
  CLUSTER_DELETING_WAITING_FOR_CONTROL_PLANE_DELETION_REASON,
  CLUSTER_DELETING_WAITING_FOR_INFRASTRUCTURE_DELETION_REASON,
  CLUSTER_DELETING_WAITING_FOR_WORKERS_DELETION_REASON,
  decideDeletion,
  type DeletionDecision,
} from './deletion';
export { filterOwnedDescendants, objectsPendingDeleteCount, objectsPendingDeleteNames } from './descendants';
