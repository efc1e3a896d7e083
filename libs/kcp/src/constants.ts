// Names the KubeadmControlPlane controller writes (field manager, controller name, messages).

/** SSA field manager of the KCP controller (upstream kcpManagerName). */
export const KCP_MANAGER_NAME = 'capi-kubeadmcontrolplane';
/**
 * SSA field manager owning the labels and annotations of the InfraMachines and KubeadmConfigs KCP created (upstream
 * kcpMetadataManagerName): KCP_MANAGER_NAME gives them up right after creating the objects, syncMachines applies them.
 */
export const KCP_METADATA_MANAGER_NAME = 'capi-kubeadmcontrolplane-metadata';
/** Controller name (queue/metrics label). */
export const KCP_CONTROLLER_NAME = 'kubeadmcontrolplane';
/**
 * Event reason/message after triggering an in-place update (upstream
 * controlplane/kubeadm/reconcilers/kubeadmcontrolplane/inplace_trigger.go).
 */
export const SUCCESSFUL_START_IN_PLACE_UPDATE_MESSAGE = 'Machine starting in-place update';
/** Events KCP emits for scale operations (upstream names). */
export const SUCCESSFUL_SCALE_UP_EVENT_REASON = 'SuccessfulScaleUp';
export const SUCCESSFUL_SCALE_DOWN_EVENT_REASON = 'SuccessfulScaleDown';
/** Requeue while waiting for preflight checks / Machines to settle. */
export const PREFLIGHT_REQUEUE_MS = 5_000;
/** Default of KcpControllerOptions.preflightDeferMs (upstream preflight.go: 5 s). */
export const PREFLIGHT_DEFER_MS = 5_000;
/** Default of KcpControllerOptions.inPlaceOnlyRecheckMs. */
export const IN_PLACE_ONLY_RECHECK_MS = 60_000;
/**
 * Field manager of the OwnerRemediated condition KCP writes on Machines. Separate from KCP_MANAGER_NAME, whose
 * status applies carry only UpToDate (and would otherwise remove OwnerRemediated).
 */
export const KCP_REMEDIATION_MANAGER_NAME = 'capi-kubeadmcontrolplane-remediation';

/** Conditions KCP sets on its Machines from the workload cluster (upstream v1beta2 KubeadmControlPlaneMachine*). */
/** The Node has kubeadm's control-plane label and (when kubeadm would set it) taint. */
export const MACHINE_NODE_KUBEADM_LABELS_AND_TAINTS_SET_CONDITION = 'NodeKubeadmLabelsAndTaintsSet';
export const MACHINE_API_SERVER_POD_HEALTHY_CONDITION = 'APIServerPodHealthy';
export const MACHINE_CONTROLLER_MANAGER_POD_HEALTHY_CONDITION = 'ControllerManagerPodHealthy';
export const MACHINE_SCHEDULER_POD_HEALTHY_CONDITION = 'SchedulerPodHealthy';
export const MACHINE_ETCD_POD_HEALTHY_CONDITION = 'EtcdPodHealthy';
export const MACHINE_ETCD_MEMBER_HEALTHY_CONDITION = 'EtcdMemberHealthy';
/** KCP conditions aggregating them. */
export const CONTROL_PLANE_COMPONENTS_HEALTHY_CONDITION = 'ControlPlaneComponentsHealthy';
export const ETCD_CLUSTER_HEALTHY_CONDITION = 'EtcdClusterHealthy';
