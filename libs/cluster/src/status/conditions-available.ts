// Deleting and Available, as upstream setDeletingCondition, setAvailableCondition and
// clusterConditionCustomMergeStrategy in core/reconcilers/cluster/cluster_controller_status.go. Available
// summarises Deleting (negative polarity), RemoteConnectionProbe, InfrastructureReady, ControlPlaneAvailable,
// WorkersAvailable, TopologyReconciled (ignored when missing: no ClusterClass here) and spec.availabilityGates.
import { summarize, type Cluster, type Condition, type ConditionInput, type MergePriority } from '@capi/api';
import {
  CHECK_LOGS_MESSAGE,
  CLUSTER_AVAILABLE_CONDITION,
  CLUSTER_AVAILABLE_REASON,
  CLUSTER_AVAILABLE_UNKNOWN_REASON,
  CLUSTER_CONTROL_PLANE_AVAILABLE_CONDITION,
  CLUSTER_DELETING_CONDITION,
  CLUSTER_INFRASTRUCTURE_READY_CONDITION,
  CLUSTER_NOT_AVAILABLE_REASON,
  CLUSTER_NOT_DELETING_REASON,
  CLUSTER_REMOTE_CONNECTION_PROBE_CONDITION,
  CLUSTER_TOPOLOGY_RECONCILED_CLUSTER_CLASS_NOT_RECONCILED_REASON,
  CLUSTER_TOPOLOGY_RECONCILED_CONDITION,
  CLUSTER_TOPOLOGY_RECONCILED_FAILED_REASON,
  CLUSTER_WORKERS_AVAILABLE_CONDITION,
  INTERNAL_ERROR_REASON,
  OBJECT_DELETED_REASON,
  OBJECT_DOES_NOT_EXIST_REASON,
} from './constants';

export function deletingCondition(cluster: Cluster, deletingReason = '', deletingMessage = ''): ConditionInput {
  if (!cluster.metadata.deletionTimestamp) {
    return { type: CLUSTER_DELETING_CONDITION, status: 'False', reason: CLUSTER_NOT_DELETING_REASON };
  }
  return {
    type: CLUSTER_DELETING_CONDITION,
    status: 'True',
    reason: deletingReason,
    ...(deletingMessage ? { message: deletingMessage } : {}),
  };
}

const DEFAULT_AVAILABILITY_GATES = [
  CLUSTER_DELETING_CONDITION,
  CLUSTER_REMOTE_CONNECTION_PROBE_CONDITION,
  CLUSTER_INFRASTRUCTURE_READY_CONDITION,
  CLUSTER_CONTROL_PLANE_AVAILABLE_CONDITION,
  CLUSTER_WORKERS_AVAILABLE_CONDITION,
  CLUSTER_TOPOLOGY_RECONCILED_CONDITION,
];

/** clusterConditionCustomMergeStrategy's priorities; undefined falls back to the polarity-based default. */
function clusterPriority(cluster: Cluster): (c: Condition) => MergePriority | undefined {
  return (c) => {
    // While deleting, a provider object that is gone is expected, not an issue.
    if (cluster.metadata.deletionTimestamp) {
      const gone = c.reason === OBJECT_DELETED_REASON || c.reason === OBJECT_DOES_NOT_EXIST_REASON;
      if (
        gone &&
        (c.type === CLUSTER_INFRASTRUCTURE_READY_CONDITION || c.type === CLUSTER_CONTROL_PLANE_AVAILABLE_CONDITION)
      ) {
        return 'Info';
      }
    }
    // TopologyReconciled False affects availability only when reconcile failed or the ClusterClass is not reconciled.
    if (
      c.type === CLUSTER_TOPOLOGY_RECONCILED_CONDITION &&
      c.status === 'False' &&
      c.reason !== CLUSTER_TOPOLOGY_RECONCILED_FAILED_REASON &&
      c.reason !== CLUSTER_TOPOLOGY_RECONCILED_CLUSTER_CLASS_NOT_RECONCILED_REASON
    ) {
      return 'Info';
    }
    return undefined;
  };
}

/** Upstream setAvailableCondition (without the ClusterClass's availability gates: no ClusterClass here). */
export function availableCondition(cluster: Cluster): ConditionInput {
  const gates = cluster.spec.availabilityGates ?? [];
  const negativePolarity = [
    CLUSTER_DELETING_CONDITION,
    ...gates.filter((g) => g.polarity === 'Negative').map((g) => g.conditionType),
  ];
  const forConditionTypes = [...new Set([...DEFAULT_AVAILABILITY_GATES, ...gates.map((g) => g.conditionType)])];
  // Upstream NewSummaryCondition refuses to summarise the target type into itself (logged, InternalError).
  if (forConditionTypes.includes(CLUSTER_AVAILABLE_CONDITION)) {
    return {
      type: CLUSTER_AVAILABLE_CONDITION,
      status: 'Unknown',
      reason: INTERNAL_ERROR_REASON,
      message: CHECK_LOGS_MESSAGE,
    };
  }
  return summarize(cluster.status?.conditions, {
    targetType: CLUSTER_AVAILABLE_CONDITION,
    forConditionTypes,
    negativePolarity,
    // spec.topology is never defined here, so a missing TopologyReconciled is not "not yet reported".
    ignoreTypesIfMissing: [CLUSTER_TOPOLOGY_RECONCILED_CONDITION],
    priority: clusterPriority(cluster),
    reasons: {
      issue: CLUSTER_NOT_AVAILABLE_REASON,
      unknown: CLUSTER_AVAILABLE_UNKNOWN_REASON,
      info: CLUSTER_AVAILABLE_REASON,
    },
  });
}
