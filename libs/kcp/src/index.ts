export * from './constants';
export {
  computeDesiredMachine,
  computeDesiredKubeadmConfig,
  computeDesiredInfraMachine,
  controlPlaneMachineLabels,
  controlPlaneMachineAnnotations,
  kcpOwnerReference,
  groupKindString,
  DesiredStateError,
  type DesiredMachineInput,
} from './desired';
export { dropOmittable, isJoinConfig, isInitConfig, prepareKubeadmConfigSpecsForDiff } from './kubeadm-diff';
export {
  upToDate,
  shouldRolloutAfter,
  shouldRolloutBefore,
  type UpToDateInput,
  type UpToDateResult,
  type NotUpToDateResult,
} from './uptodate';
export {
  planReconcile,
  preflightChecks,
  inPlacePreflightDecision,
  selectMachineForScaleDown,
  failureDomainForScaleUp,
  needsTriggerCompletion,
  desiredReplicas,
  maxSurge,
  KcpSpecError,
  type ControlPlaneMachine,
  type KcpAction,
  type PreflightResult,
  type InPlacePreflightDecision,
} from './decide';
export {
  computeKcpStatus,
  machineUpToDateCondition,
  isUpdatingInPlace,
  isMachineAvailable,
  controlPlaneSelector,
  lowestVersion,
  type KcpStatusInput,
} from './status';
export {
  decideRemediation,
  checkRetryLimits,
  canSafelyRemoveEtcdMember,
  selectMachineToRemediate,
  remediatingCondition,
  lastRemediation,
  parseRemediationData,
  formatRemediationData,
  isToBeRemediated,
  isUnhealthy,
  RemediationDataError,
  MACHINE_CANNOT_BE_REMEDIATED_REASON,
  MACHINE_REMEDIATION_DEFERRED_REASON,
  MACHINE_REMEDIATION_MACHINE_DELETING_REASON,
  MACHINE_REMEDIATION_INTERNAL_ERROR_REASON,
  REMEDIATING_REASON,
  NOT_REMEDIATING_REASON,
  DEFAULT_MIN_HEALTHY_PERIOD_SECONDS,
  type RemediationData,
  type RemediationDecision,
  type RemediationAction,
  type RemediationInput,
  type OwnerRemediatedInput,
} from './remediation';
export {
  syncMachines,
  deletionTimeoutsPatch,
  machineSyncInputs,
  isNotFoundCause,
  type ControlPlaneMachineObjects,
  type SyncMachinesDeps,
  type DeletionTimeoutsPatch,
} from './sync-machines';
export {
  canUpdateMachine,
  buildCanUpdateMachineRequest,
  triggerInPlaceUpdate,
  InPlaceTriggerError,
  type InPlaceDeps,
  type CanUpdateResult,
} from './inplace';
export {
  KCP_WORKLOAD_CLUSTER_PROVIDER,
  ClientWorkloadCluster,
  KubeconfigWorkloadClusterProvider,
  InMemoryWorkloadClusterProvider,
  SimulatedEtcdClient,
  isNodeReady,
  workloadNodeOf,
  staticPodOf,
  CONTROL_PLANE_NODE_ROLE_LABEL,
  type WorkloadNode,
  type WorkloadCluster,
  type WorkloadClusterProvider,
  type NodeSource,
  type StaticPod,
  type EtcdMember,
  type EtcdClient,
  type EtcdClientFactory,
} from './workload-cluster';
export {
  computeControlPlaneHealth,
  staticPodCondition,
  aggregateToKcp,
  requiredHealthConditions,
  isEtcdManaged,
  staticPodName,
  type ControlPlaneHealth,
  type ControlPlaneHealthInput,
  type Observed,
} from './health';
export { observeControlPlane, type ControlPlaneObservation } from './control-plane-view';
export { KCP_CONTROLLER_OPTIONS, type KcpControllerOptions } from './options';
export { KubeadmControlPlaneReconciler, kcpRequestsForCluster } from './kcp.reconciler';
export { KcpControllerModule } from './kcp-controller.module';
