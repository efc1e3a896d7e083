// A WorkloadClusterProvider for the KCP envtests: reads Nodes, static Pods and etcd members through the default
// provider, and records the etcd operations of a control-plane Machine's deletion (forwardEtcdLeadership,
// removeEtcdMemberForMachine) instead of performing them, so the deletion hooks can be tested without an etcd behind
// the in-memory workload clusters. Bound to KCP_WORKLOAD_CLUSTER_PROVIDER by the harness.
import type { Machine } from '@capi/api';
import type { ClusterKey } from '@capi/clustercache';
import type { WorkloadCluster, WorkloadClusterProvider } from '@capi/kcp';

export interface EtcdCall {
  op: 'forwardEtcdLeadership' | 'removeEtcdMemberForMachine';
  cluster: string;
  machine: string;
  /** forwardEtcdLeadership: the leader candidate (undefined: none was available). */
  candidate?: string;
}

export class RecordingEtcdWorkloadClusterProvider implements WorkloadClusterProvider {
  readonly calls: EtcdCall[] = [];
  /** Runs at each call, before it returns (e.g. to look at the management cluster at that moment). */
  onCall?: (call: EtcdCall) => Promise<void>;

  constructor(private readonly inner: WorkloadClusterProvider) {}

  async forCluster(cluster: ClusterKey): Promise<WorkloadCluster> {
    const wc = await this.inner.forCluster(cluster);
    const key = `${cluster.namespace}/${cluster.name}`;
    return {
      nodes: (names) => wc.nodes(names),
      staticPods: () => wc.staticPods(),
      etcdMembersAndAlarms: (names) => wc.etcdMembersAndAlarms(names),
      removeEtcdMember: (member) => wc.removeEtcdMember(member),
      forwardEtcdLeadership: (machine: Machine, candidate: Machine | undefined) =>
        this.record({
          op: 'forwardEtcdLeadership',
          cluster: key,
          machine: machine.metadata.name!,
          candidate: candidate?.metadata.name,
        }),
      removeEtcdMemberForMachine: (machine: Machine) =>
        this.record({ op: 'removeEtcdMemberForMachine', cluster: key, machine: machine.metadata.name! }),
    };
  }

  private async record(call: EtcdCall): Promise<void> {
    this.calls.push(call);
    await this.onCall?.(call);
  }

  close(): void | Promise<void> {
    return this.inner.close?.();
  }
}
