// Annotation/label keys, finalizers, condition types and reasons (exact upstream strings:
// api/core/v1beta2/common_types.go, machine_types.go, api/runtime/v1beta2/extensionconfig_types.go).

// ---- Labels ----
export const CLUSTER_NAME_LABEL = 'cluster.x-k8s.io/cluster-name';
export const MACHINE_DEPLOYMENT_NAME_LABEL = 'cluster.x-k8s.io/deployment-name';
export const MACHINE_SET_NAME_LABEL = 'cluster.x-k8s.io/set-name';
export const MACHINE_TEMPLATE_HASH_LABEL = 'machine-template-hash';
export const MACHINE_CONTROL_PLANE_LABEL = 'cluster.x-k8s.io/control-plane';
export const MACHINE_CONTROL_PLANE_NAME_LABEL = 'cluster.x-k8s.io/control-plane-name';
export const MACHINE_DEPLOYMENT_UNIQUE_LABEL = MACHINE_TEMPLATE_HASH_LABEL;
export const CLUSTER_TOPOLOGY_OWNED_LABEL = 'topology.cluster.x-k8s.io/owned';
export const WATCH_LABEL = 'cluster.x-k8s.io/watch-filter';
/** Contract label on provider CRDs: value = the CRD version implementing contract v1beta2. */
export const CONTRACT_VERSION_LABEL_V1BETA2 = 'cluster.x-k8s.io/v1beta2';
export const PROVIDER_NAME_LABEL = 'cluster.x-k8s.io/provider';

// ---- Annotations ----
export const REVISION_ANNOTATION = 'machinedeployment.clusters.x-k8s.io/revision';
export const DESIRED_REPLICAS_ANNOTATION = 'machinedeployment.clusters.x-k8s.io/desired-replicas';
export const MAX_REPLICAS_ANNOTATION = 'machinedeployment.clusters.x-k8s.io/max-replicas';
export const DISABLE_MACHINE_CREATE_ANNOTATION = 'cluster.x-k8s.io/disable-machine-create';
export const TEMPLATE_CLONED_FROM_NAME_ANNOTATION = 'cluster.x-k8s.io/cloned-from-name';
export const TEMPLATE_CLONED_FROM_GROUP_KIND_ANNOTATION = 'cluster.x-k8s.io/cloned-from-groupkind';
export const PAUSED_ANNOTATION = 'cluster.x-k8s.io/paused';
export const DELETE_MACHINE_ANNOTATION = 'cluster.x-k8s.io/delete-machine';
export const EXCLUDE_NODE_DRAINING_ANNOTATION = 'machine.cluster.x-k8s.io/exclude-node-draining';
export const EXCLUDE_WAIT_FOR_NODE_VOLUME_DETACH_ANNOTATION =
  'machine.cluster.x-k8s.io/exclude-wait-for-node-volume-detach';
export const REMEDIATE_MACHINE_ANNOTATION = 'cluster.x-k8s.io/remediate-machine';
export const MACHINE_SKIP_REMEDIATION_ANNOTATION = 'cluster.x-k8s.io/skip-remediation';
export const MANAGED_BY_ANNOTATION = 'cluster.x-k8s.io/managed-by';
/** KCP: last-applied ClusterConfiguration marker on Machines. */
export const KUBEADM_CLUSTER_CONFIGURATION_ANNOTATION = 'controlplane.cluster.x-k8s.io/kubeadm-cluster-configuration';
export const KCP_REMEDIATION_IN_PROGRESS_ANNOTATION = 'controlplane.cluster.x-k8s.io/remediation-in-progress';
export const KCP_REMEDIATION_FOR_ANNOTATION = 'controlplane.cluster.x-k8s.io/remediation-for';

// In-place update markers (upstream api/core/v1beta2/machine_types.go, api/runtime/v1beta2/extensionconfig_types.go).
export const UPDATE_IN_PROGRESS_ANNOTATION = 'in-place-updates.internal.cluster.x-k8s.io/update-in-progress';
export const PENDING_HOOKS_ANNOTATION = 'runtime.cluster.x-k8s.io/pending-hooks';
/**
 * This project's (beyond upstream): comma-separated ExtensionConfig names whose Can* patches made up a Machine's accepted
 * in-place change (written by the owning controller, read by the Machine controller and `describe cluster`).
 */
export const IN_PLACE_UPDATERS_ANNOTATION = 'in-place-updates.capi-inplace.io/updaters';
export const OK_TO_DELETE_ANNOTATION = 'runtime.cluster.x-k8s.io/ok-to-delete';
export const MOVE_MACHINES_TO_MACHINESET_ANNOTATION =
  'in-place-updates.internal.cluster.x-k8s.io/move-machines-to-machineset';
export const RECEIVE_MACHINES_FROM_MACHINESETS_ANNOTATION =
  'in-place-updates.internal.cluster.x-k8s.io/receive-machines-from-machinesets';
export const PENDING_ACKNOWLEDGE_MOVE_ANNOTATION =
  'in-place-updates.internal.cluster.x-k8s.io/pending-acknowledge-move';
export const ACKNOWLEDGED_MOVE_ANNOTATION = 'in-place-updates.internal.cluster.x-k8s.io/acknowledged-move';
/** ExtensionConfig: `<namespace>/<secret-name>` whose `ca.crt` is injected into spec.clientConfig.caBundle. */
export const INJECT_CA_FROM_SECRET_ANNOTATION = 'runtime.cluster.x-k8s.io/inject-ca-from-secret';

// ---- Finalizers ----
export const CLUSTER_FINALIZER = 'cluster.cluster.x-k8s.io';
export const MACHINE_FINALIZER = 'machine.cluster.x-k8s.io';
export const MACHINE_SET_FINALIZER = 'cluster.x-k8s.io/machineset';
export const MACHINE_DEPLOYMENT_FINALIZER = 'cluster.x-k8s.io/machinedeployment';
export const KUBEADM_CONTROL_PLANE_FINALIZER = 'kubeadm.controlplane.cluster.x-k8s.io';

// ---- Condition types ----
export const READY_CONDITION = 'Ready';
export const AVAILABLE_CONDITION = 'Available';
export const PAUSED_CONDITION = 'Paused';
export const DELETING_CONDITION = 'Deleting';
export const UP_TO_DATE_CONDITION = 'UpToDate';
export const UPDATING_CONDITION = 'Updating';
export const MACHINES_UP_TO_DATE_CONDITION = 'MachinesUpToDate';
export const MACHINES_READY_CONDITION = 'MachinesReady';
export const CONTROL_PLANE_MACHINES_UP_TO_DATE_CONDITION = 'ControlPlaneMachinesUpToDate';
export const WORKER_MACHINES_UP_TO_DATE_CONDITION = 'WorkerMachinesUpToDate';
export const SCALING_UP_CONDITION = 'ScalingUp';
export const SCALING_DOWN_CONDITION = 'ScalingDown';
export const REMEDIATING_CONDITION = 'Remediating';
export const ROLLING_OUT_CONDITION = 'RollingOut';
export const HEALTH_CHECK_SUCCEEDED_CONDITION = 'HealthCheckSucceeded';
export const OWNER_REMEDIATED_CONDITION = 'OwnerRemediated';
export const BOOTSTRAP_CONFIG_READY_CONDITION = 'BootstrapConfigReady';
export const INFRASTRUCTURE_READY_CONDITION = 'InfrastructureReady';
export const NODE_HEALTHY_CONDITION = 'NodeHealthy';
export const NODE_READY_CONDITION = 'NodeReady';
export const DISCOVERED_CONDITION = 'Discovered';

// ---- Condition reasons ----
// Machine Updating (upstream api/core/v1beta2/machine_types.go).
export const NOT_UPDATING_REASON = 'NotUpdating';
export const IN_PLACE_UPDATING_REASON = 'InPlaceUpdating';
export const IN_PLACE_UPDATE_FAILED_REASON = 'InPlaceUpdateFailed';
// Machine UpToDate.
export const UP_TO_DATE_REASON = 'UpToDate';
export const NOT_UP_TO_DATE_REASON = 'NotUpToDate';
export const MACHINE_UP_TO_DATE_UPDATING_REASON = 'Updating';
// Aggregated MachinesUpToDate on MS / MD / KCP.
export const MACHINES_UP_TO_DATE_REASON = 'UpToDate';
export const MACHINES_NOT_UP_TO_DATE_REASON = 'NotUpToDate';
export const MACHINES_UP_TO_DATE_UNKNOWN_REASON = 'UpToDateUnknown';
export const MACHINES_UP_TO_DATE_NO_REPLICAS_REASON = 'NoReplicas';
export const INTERNAL_ERROR_REASON = 'InternalError';
// Availability / readiness.
export const AVAILABLE_REASON = 'Available';
export const NOT_AVAILABLE_REASON = 'NotAvailable';
export const READY_REASON = 'Ready';
export const NOT_READY_REASON = 'NotReady';
export const MULTIPLE_INFO_REPORTED_REASON = 'MultipleInfoReported';
export const PAUSED_REASON = 'Paused';
export const NOT_PAUSED_REASON = 'NotPaused';
export const DELETING_REASON = 'Deleting';
export const NOT_DELETING_REASON = 'NotDeleting';
// MHC.
export const HEALTH_CHECK_SUCCEEDED_REASON = 'HealthCheckSucceeded';
export const UNHEALTHY_NODE_REASON = 'UnhealthyNode';
export const UNHEALTHY_MACHINE_REASON = 'UnhealthyMachine';
export const NODE_STARTUP_TIMEOUT_REASON = 'NodeStartupTimeout';
export const NODE_DELETED_REASON = 'NodeDeleted';
export const WAITING_FOR_REMEDIATION_REASON = 'WaitingForRemediation';
export const REMEDIATION_IN_PROGRESS_REASON = 'RemediationInProgress';
export const OWNER_REMEDIATED_REASON = 'OwnerRemediated';
// ExtensionConfig Discovered.
export const DISCOVERED_REASON = 'Discovered';
export const NOT_DISCOVERED_REASON = 'NotDiscovered';
/** v1beta1 (deprecated conditions) reason for a failed discovery. */
export const DISCOVERY_FAILED_V1BETA1_REASON = 'DiscoveryFailed';

/** Event reason KCP emits after triggering an in-place update. */
export const SUCCESSFUL_START_IN_PLACE_UPDATE_EVENT_REASON = 'SuccessfulStartInPlaceUpdate';
