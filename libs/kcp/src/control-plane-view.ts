// Reads the workload cluster for a KCP's Machines (Nodes, static Pods, etcd members) and builds what the decisions
// need: per Machine its up-to-date result, Node readiness and health conditions, plus the KCP health conditions.
// Read failures are not errors: they become Unknown conditions (and preflight then waits).
import type { Cluster, ConditionInput, KubeadmControlPlane, Machine } from '@capi/api';
import type { ControlPlaneMachine } from './decide';
import { computeControlPlaneHealth, isEtcdManaged, type Observed } from './health';
import type { NotUpToDateResult } from './uptodate';
import type { EtcdMember, StaticPod, WorkloadCluster, WorkloadClusterProvider, WorkloadNode } from './workload-cluster';

export interface ControlPlaneObservation {
  view: ControlPlaneMachine[];
  /** The workload cluster has a Ready control-plane Node (kubeadm init done). */
  controlPlaneNodeReady: boolean;
  /** Per Machine: the health conditions to write. */
  machineHealth: Map<string, ConditionInput[]>;
  /** ControlPlaneComponentsHealthy / EtcdClusterHealthy for the KCP status. */
  kcpHealth: ConditionInput[];
  etcdManaged: boolean;
  /** Workload cluster Nodes and etcd members; undefined when not read (no Machines) or the read failed. */
  nodes?: WorkloadNode[];
  etcdMembers?: EtcdMember[];
  /** Why the Nodes could not be read (upstream NodeListError). */
  nodesError?: string;
}

async function observe<T>(read: () => Promise<T>): Promise<Observed<T>> {
  try {
    return { value: await read() };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

export async function observeControlPlane(
  workloads: WorkloadClusterProvider,
  cluster: Cluster,
  kcp: KubeadmControlPlane,
  machines: Machine[],
  results: Map<string, { upToDate: boolean; result: NotUpToDateResult }>,
): Promise<ControlPlaneObservation> {
  const etcdManaged = isEtcdManaged(kcp);
  const notRead = { error: 'not read' };
  let nodes: Observed<WorkloadNode[]> = notRead;
  let pods: Observed<Map<string, StaticPod>> = notRead;
  let etcdMembers: Observed<EtcdMember[]> = notRead;
  if (machines.length > 0) {
    const wc = await observe<WorkloadCluster>(() =>
      workloads.forCluster({ namespace: cluster.metadata.namespace!, name: cluster.metadata.name! }),
    );
    if ('error' in wc) nodes = { error: `failed to connect to the workload cluster: ${wc.error}` };
    else {
      const machineNodes = machines.map((m) => m.status?.nodeRef?.name).filter((n): n is string => !!n);
      nodes = await observe(() => wc.value.nodes(machineNodes));
      pods = await observe(() => wc.value.staticPods());
      if (etcdManaged) etcdMembers = await observe(() => wc.value.etcd().members());
    }
  }
  const health = computeControlPlaneHealth({ machines, nodes, pods, etcdMembers, etcdManaged });
  const readiness = 'value' in nodes ? new Map(nodes.value.map((n) => [n.name, n.ready])) : undefined;
  const view = machines.map((machine): ControlPlaneMachine => {
    const r = results.get(machine.metadata.name!)!;
    const node = machine.status?.nodeRef?.name;
    return {
      machine,
      upToDate: r.upToDate,
      eligibleForInPlaceUpdate: r.result.eligibleForInPlaceUpdate,
      nodeHealthy: node && readiness ? readiness.get(node) === true : undefined,
      health: health.machines.get(machine.metadata.name!) ?? [],
    };
  });
  return {
    view,
    controlPlaneNodeReady: 'value' in nodes && nodes.value.some((n) => n.controlPlane && n.ready),
    machineHealth: health.machines,
    kcpHealth: machines.length > 0 ? health.kcp : [],
    etcdManaged,
    nodes: 'value' in nodes ? nodes.value : undefined,
    etcdMembers: 'value' in etcdMembers ? etcdMembers.value : undefined,
    nodesError: 'error' in nodes && machines.length > 0 ? nodes.error : undefined,
  };
}
