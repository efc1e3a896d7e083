// The Cluster's condition types and reasons, as upstream api/core/v1beta2/cluster_types.go (values resolved from
// condition_consts.go).

export const CLUSTER_AVAILABLE_CONDITION = 'Available';
export const CLUSTER_AVAILABLE_REASON = 'Available';
export const CLUSTER_NOT_AVAILABLE_REASON = 'NotAvailable';
export const CLUSTER_AVAILABLE_UNKNOWN_REASON = 'AvailableUnknown';

export const CLUSTER_TOPOLOGY_RECONCILED_CONDITION = 'TopologyReconciled';
export const CLUSTER_TOPOLOGY_RECONCILED_FAILED_REASON = 'ReconcileFailed';
export const CLUSTER_TOPOLOGY_RECONCILED_CLUSTER_CLASS_NOT_RECONCILED_REASON = 'ClusterClassNotReconciled';

export const CLUSTER_INFRASTRUCTURE_READY_CONDITION = 'InfrastructureReady';
export const CLUSTER_CONTROL_PLANE_INITIALIZED_CONDITION = 'ControlPlaneInitialized';
export const CLUSTER_CONTROL_PLANE_INITIALIZED_REASON = 'Initialized';
export const CLUSTER_CONTROL_PLANE_NOT_INITIALIZED_REASON = 'NotInitialized';
export const CLUSTER_CONTROL_PLANE_AVAILABLE_CONDITION = 'ControlPlaneAvailable';
export const CLUSTER_WORKERS_AVAILABLE_CONDITION = 'WorkersAvailable';
export const CLUSTER_WORKERS_AVAILABLE_NO_WORKERS_REASON = 'NoWorkers';
export const CLUSTER_CONTROL_PLANE_MACHINES_READY_CONDITION = 'ControlPlaneMachinesReady';
export const CLUSTER_WORKER_MACHINES_READY_CONDITION = 'WorkerMachinesReady';
export const CLUSTER_CONTROL_PLANE_MACHINES_UP_TO_DATE_CONDITION = 'ControlPlaneMachinesUpToDate';
export const CLUSTER_WORKER_MACHINES_UP_TO_DATE_CONDITION = 'WorkerMachinesUpToDate';

export const CLUSTER_REMOTE_CONNECTION_PROBE_CONDITION = 'RemoteConnectionProbe';
export const CLUSTER_REMOTE_CONNECTION_PROBE_FAILED_REASON = 'ProbeFailed';
export const CLUSTER_REMOTE_CONNECTION_PROBE_SUCCEEDED_REASON = 'ProbeSucceeded';

export const CLUSTER_ROLLING_OUT_CONDITION = 'RollingOut';
export const CLUSTER_SCALING_UP_CONDITION = 'ScalingUp';
export const CLUSTER_SCALING_DOWN_CONDITION = 'ScalingDown';
export const CLUSTER_REMEDIATING_CONDITION = 'Remediating';
export const CLUSTER_REMEDIATING_REASON = 'Remediating';
export const CLUSTER_NOT_REMEDIATING_REASON = 'NotRemediating';

export const CLUSTER_DELETING_CONDITION = 'Deleting';
export const CLUSTER_NOT_DELETING_REASON = 'NotDeleting';

// Shared reasons (condition_consts.go).
export const READY_REASON = 'Ready';
export const NOT_READY_REASON = 'NotReady';
export const READY_UNKNOWN_REASON = 'ReadyUnknown';
export const AVAILABLE_REASON = 'Available';
export const NOT_AVAILABLE_REASON = 'NotAvailable';
export const AVAILABLE_UNKNOWN_REASON = 'AvailableUnknown';
export const UP_TO_DATE_REASON = 'UpToDate';
export const NOT_UP_TO_DATE_REASON = 'NotUpToDate';
export const UP_TO_DATE_UNKNOWN_REASON = 'UpToDateUnknown';
export const NO_REPLICAS_REASON = 'NoReplicas';
export const INVALID_CONDITION_REPORTED_REASON = 'InvalidConditionReported';
export const INTERNAL_ERROR_REASON = 'InternalError';
export const OBJECT_DOES_NOT_EXIST_REASON = 'ObjectDoesNotExist';
export const OBJECT_DELETED_REASON = 'ObjectDeleted';

/** The message upstream sets with every InternalError reason (the error itself is logged). */
export const CHECK_LOGS_MESSAGE = 'Please check controller logs for errors';
