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
export { dropOmittable, isJoinConfig, comparableClusterConfigurations, comparableInitOrJoin, prepareKubeadmConfigSpecsForDiff } from './kubeadm-diff';
export { upToDate, shouldRolloutAfter, shouldRolloutBefore, type UpToDateInput, type UpToDateResult, type NotUpToDateResult } from './uptodate';
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
export { computeKcpStatus, machineUpToDateCondition, isUpdatingInPlace, isMachineAvailable, controlPlaneSelector, lowestVersion, type KcpStatusInput } from './status';
export { canUpdateMachine, buildCanUpdateMachineRequest, triggerInPlaceUpdate, InPlaceTriggerError, type InPlaceDeps, type CanUpdateResult } from './inplace';
export { ApiEventRecorder, type EventRecorder } from './events';
export {
  KCP_WORKLOAD_CLUSTER_PROVIDER,
  ClientWorkloadCluster,
  KubeconfigWorkloadClusterProvider,
  InMemoryWorkloadClusterProvider,
  isNodeReady,
  CONTROL_PLANE_NODE_ROLE_LABEL,
  type WorkloadNode,
  type WorkloadCluster,
  type WorkloadClusterProvider,
} from './workload-cluster';
export { KCP_CONTROLLER_OPTIONS, type KcpControllerOptions } from './options';
export { KubeadmControlPlaneReconciler, kcpRequestsForCluster } from './kcp.reconciler';
export { KcpControllerModule } from './kcp-controller.module';
