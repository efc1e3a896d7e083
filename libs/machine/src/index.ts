export { MachineControllerModule } from './machine-controller.module';
export { MachineReconciler } from './machine.reconciler';
export {
  MACHINE_CONTROLLER_NAME,
  MACHINE_FIELD_MANAGER,
  MACHINE_CONTROLLER_OPTIONS,
  type MachineControllerOptions,
} from './options';
export {
  WORKLOAD_CLUSTER_CLIENT_PROVIDER,
  kubeconfigSecretClientProvider,
  WorkloadClusterConnectionError,
  type WorkloadClusterClientProvider,
  type ClusterKey,
} from './workload-cluster';
export { findNodeByProviderID } from './machine-node';
export {
  WORKLOAD_CLUSTER_CACHE,
  WorkloadClusterCache,
  NODE_PROVIDER_ID_FIELD,
  type WorkloadClusterCacheOptions,
  type NodeEventHandler,
  type NodeEventType,
} from './workload-cluster-cache';
export { SHARED_WORKLOAD_CLUSTER_CACHE, WorkloadClusterCacheModule } from './workload-cluster-cache.module';
export {
  decideInPlaceStep,
  decideAfterUpdateMachine,
  updatingReportFor,
  inProgressMessage,
  INFRA_MACHINE_NOT_FOUND_MESSAGE,
  UPDATE_MACHINE_FAILED_MESSAGE,
  type InPlaceState,
  type InPlaceAction,
  type UpdateMachineOutcome,
  type UpdatingReport,
} from './inplace-decision';
export { computeMachineStatus, machinePhase, type StatusInput, type StatusResult, type MachinePhase } from './status';
export {
  ContractVersionResolver,
  contractVersionOf,
  ContractVersionError,
  type ContractVersionedRef,
} from './external';
export type { MachineObject } from './types';
export { patchStatus, CONDITIONS_PATCH_ATTEMPTS, type StatusPatchOptions } from './status-patch';
