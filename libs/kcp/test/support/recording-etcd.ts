// A WorkloadClusterProvider for the KCP envtests: the default provider (the in-memory workload clusters' API servers
// and their etcd members, reached as on a real cluster), recording the etcd operations of a control-plane Machine's
// deletion (forwardEtcdLeadership, removeEtcdMemberForMachine) as it performs them, so tests can assert their order.
// Bound to KCP_WORKLOAD_CLUSTER_PROVIDER by the harness.
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
      ...(wc.kubeClient ? { kubeClient: () => wc.kubeClient!() } : {}),
      forwardEtcdLeadership: async (machine: Machine, candidate: Machine | undefined) => {
        await wc.forwardEtcdLeadership(machine, candidate);
        await this.record({
          op: 'forwardEtcdLeadership',
          cluster: key,
          machine: machine.metadata.name!,
          candidate: candidate?.metadata.name,
        });
      },
      removeEtcdMemberForMachine: async (machine: Machine) => {
        await wc.removeEtcdMemberForMachine(machine);
        await this.record({ op: 'removeEtcdMemberForMachine', cluster: key, machine: machine.metadata.name! });
      },
    };
  }

  /**
   * Records a call that was performed. The onCall hook sees the management cluster right after it, and runs before the
   * call shows in `calls`: a test that waits for the call then sees what its hook saw.
   */
  private async record(call: EtcdCall): Promise<void> {
    await this.onCall?.(call);
    this.calls.push(call);
  }

  close(): void | Promise<void> {
    return this.inner.close?.();
  }
}
