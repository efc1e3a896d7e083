export {
  type EtcdMember,
  KCP_WORKLOAD_CLUSTER_PROVIDER,
  type StaticPod,
  type WorkloadCluster,
  type WorkloadClusterProvider,
  type WorkloadNode,
} from './workload-cluster';
export type { KcpControllerOptions } from './options';
export { KcpControllerModule } from './kcp-controller.module';
export type { EtcdClientGeneratorFactory, EtcdAccessOptions } from './etcd-access';
export type { EtcdClientFor, EtcdMembersAndAlarms } from './workload-etcd';
export {
  KcpPlanError,
  planKcpRollout,
  type KcpMachineOutcome,
  type KcpPlanDeps,
  type KcpRolloutPlan,
} from './rollout-plan';
