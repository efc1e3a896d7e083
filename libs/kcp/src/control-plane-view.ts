// Reads the workload cluster for a KCP's Machines (Nodes, static Pods, etcd members) and builds what the decisions
// need: per Machine its up-to-date result, Node readiness and health conditions, plus the KCP health conditions.
// Read failures are not errors: they become Unknown conditions (and preflight then waits).
import type { Cluster, ConditionInput, KubeadmControlPlane, Machine } from '@capi/api';
import type { ControlPlaneMachine } from './decide';
import { computeControlPlaneHealth, isEtcdManaged, type Observed } from './health';
import type { NotUpToDateResult } from './uptodate';
import type { MemberAlarm } from '@capi/etcd';
import type { EtcdMember, StaticPod, WorkloadCluster, WorkloadClusterProvider, WorkloadNode } from './workload-cluster';
import { nodeNamesSortedByLastKnownEtcdHealth, type EtcdMembersAndAlarms } from './workload-etcd';

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
  /** The etcd leader and alarms read with the members (upstream ControlPlane.EtcdLeader / EtcdMembersAlarms). */
  etcdLeader?: EtcdMember;
  etcdAlarms?: MemberAlarm[];
  /** Why the Nodes could not be read (upstream NodeListError; etcd cannot be reached then either). */
  nodesError?: string;
  /** The workload cluster read from, for the etcd operations of this reconcile; undefined if it was not reachable. */
  workload?: WorkloadCluster;
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
  let etcd: EtcdMembersAndAlarms | undefined;
  let workload: WorkloadCluster | undefined;
  if (machines.length > 0) {
    const wc = await observe<WorkloadCluster>(() =>
      workloads.forCluster({ namespace: cluster.metadata.namespace!, name: cluster.metadata.name! }),
    );
    if ('error' in wc) nodes = { error: `failed to connect to the workload cluster: ${wc.error}` };
    else {
      const machineNodes = machines.map((m) => m.status?.nodeRef?.name).filter((n): n is string => !!n);
      workload = wc.value;
      nodes = await observe(() => wc.value.nodes(machineNodes));
      pods = await observe(() => wc.value.staticPods());
      if (etcdManaged && 'value' in nodes)
        etcd = await observeEtcd((names) => wc.value.etcdMembersAndAlarms(names), nodes.value, machines);
    }
  }
  const kubeadmConfigs = new Map(
    [...results].flatMap(([name, r]) => (r.result.currentKubeadmConfig ? [[name, r.result.currentKubeadmConfig]] : [])),
  );
  const health = computeControlPlaneHealth({ machines, nodes, pods, etcd, etcdManaged, kubeadmConfigs });
  const etcdRead = etcd && 'members' in etcd ? etcd : undefined;
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
    etcdMembers: etcdRead?.members,
    etcdLeader: etcdRead?.leader,
    etcdAlarms: etcdRead?.alarms,
    nodesError: 'error' in nodes && machines.length > 0 ? nodes.error : undefined,
    workload,
  };
}

/**
 * Members, leader and alarms through the members on the control-plane Nodes of Machines neither provisioning nor
 * deleting, last known healthy first (upstream getCurrentEtcdMembersAndAlarms); undefined when there is none.
 */
export async function observeEtcd(
  read: (nodeNames: readonly string[]) => Promise<EtcdMembersAndAlarms>,
  nodes: readonly WorkloadNode[],
  machines: readonly Machine[],
): Promise<EtcdMembersAndAlarms | undefined> {
  const eligible = machines.filter((m) => m.status?.nodeRef?.name && !m.metadata.deletionTimestamp);
  const nodeNames = nodeNamesSortedByLastKnownEtcdHealth(
    nodes.filter((n) => n.controlPlane).map((n) => n.name),
    eligible,
  );
  if (nodeNames.length === 0) return undefined;
  try {
    return await read(nodeNames);
  } catch (e) {
    const message = (e as Error).message;
    return { error: message, machineMessage: `Failed to connect to etcd: ${message}` };
  }
}
