// What KCP reads from and does to a workload cluster (upstream controlplane/kubeadm/pkg/workload_cluster.go, reduced
// to what the health conditions, preflight checks and etcd membership need): Nodes, the kube-system static Pods of
// the control-plane components, and etcd. The default implementation reads through a client built from the
// `<cluster>-kubeconfig` Secret and reaches etcd with @capi/etcd (etcd-access.ts; swappable:
// KcpControllerOptions.etcdClientGeneratorFactory).
import type { Machine } from '@capi/api';
import type { EtcdMember as EtcdMemberInfo } from '@capi/etcd';
import type { KubeObject } from '@capi/apimachinery';
import { NoKindMatchError, type Client } from '@capi/controller-runtime';
import {
  kubeconfigSecretClientProvider,
  WorkloadClusterCache,
  type ClusterKey,
  type WorkloadClusterClientProvider,
} from '@capi/clustercache';
import { etcdClientGeneratorFactory, type EtcdClientGeneratorFactory } from './etcd-access';
import {
  forwardEtcdLeadership,
  readEtcdMembersAndAlarms,
  removeEtcdMember,
  type EtcdClientFor,
  type EtcdMembersAndAlarms,
} from './workload-etcd';

export interface WorkloadNode {
  name: string;
  ready: boolean;
  /** Status of the Ready condition (Unknown: the kubelet stopped posting, Pod data may be stale). */
  readyStatus?: 'True' | 'False' | 'Unknown';
  /** Carries the node-role.kubernetes.io/control-plane label (kubeadm sets it on control-plane Nodes). */
  controlPlane: boolean;
  /** Tainted node.kubernetes.io/unreachable:NoExecute by the node lifecycle controller. */
  unreachable?: boolean;
  /** spec.taints (key and effect; the NodeKubeadmLabelsAndTaintsSet condition looks for kubeadm's control-plane taint). */
  taints?: { key: string; effect?: string }[];
  /** metadata.creationTimestamp (a new Node gets time to show up as an etcd member). */
  creationTimestamp?: string;
}

/** A static Pod as the health conditions need it. */
export interface StaticPod {
  name: string;
  phase?: string;
  conditions: { type: string; status: string }[];
  containers: { name: string; waitingReason?: string; waitingMessage?: string }[];
}

/** An etcd member as the decisions need it (@capi/etcd's EtcdMember; id and name at least). */
export type EtcdMember = Pick<EtcdMemberInfo, 'id' | 'name'> & Partial<EtcdMemberInfo>;

export interface WorkloadCluster {
  /**
   * The control-plane Nodes (label node-role.kubernetes.io/control-plane, as upstream's getControlPlaneNodes), plus
   * those of `machineNodeNames` that exist without the label (upstream reads them by name to tell "no label" from
   * "no Node"). Worker Nodes are not read.
   */
  nodes(machineNodeNames?: readonly string[]): Promise<WorkloadNode[]>;
  /** kube-system static Pods of the control-plane components, by name (`<component>-<node>`). */
  staticPods(): Promise<Map<string, StaticPod>>;
  /**
   * The etcd members, leader and alarms, read through the first member of `nodeNames` that answers (upstream
   * getCurrentEtcdMembersAndAlarms); failures are returned, not thrown.
   */
  etcdMembersAndAlarms(nodeNames: readonly string[]): Promise<EtcdMembersAndAlarms>;
  /**
   * Moves etcd leadership off the member of `machine` to the member of `leaderCandidate` when `machine`'s member leads
   * (upstream workload_cluster_etcd.go ForwardEtcdLeadership); a Machine without a Node has no member: nothing to do.
   */
  forwardEtcdLeadership(machine: Machine, leaderCandidate: Machine | undefined): Promise<void>;
  /**
   * Removes the etcd member of `machine`'s Node through a member on another control-plane Node (upstream
   * RemoveEtcdMember); no Node or no member is not an error, the last member is never removed.
   */
  removeEtcdMemberForMachine(machine: Machine): Promise<void>;
  /** The workload cluster's API client (upstream Workload.Client), for the kubeadm objects KCP keeps in line. */
  kubeClient?(): Client;
  /** Removes `member` through a member on another control-plane Node (upstream RemoveEtcdMember). */
  removeEtcdMember(member: EtcdMember): Promise<void>;
}

export const CONTROL_PLANE_NODE_ROLE_LABEL = 'node-role.kubernetes.io/control-plane';
const UNREACHABLE_TAINT = 'node.kubernetes.io/unreachable';

export interface WorkloadClusterProvider {
  forCluster(cluster: ClusterKey): Promise<WorkloadCluster>;
  close?(): void | Promise<void>;
}

/** Injection token of the KCP's WorkloadClusterProvider. */
export const KCP_WORKLOAD_CLUSTER_PROVIDER = Symbol.for('capi.kcp.WorkloadClusterProvider');

interface NodeObject extends KubeObject {
  spec?: { taints?: { key: string; effect?: string }[] };
  status?: { conditions?: { type: string; status: string }[] };
}

interface PodObject extends KubeObject {
  status?: {
    phase?: string;
    conditions?: { type: string; status: string }[];
    containerStatuses?: { name: string; state?: { waiting?: { reason?: string; message?: string } } }[];
  };
}

/** Node readiness of a node object: its Ready condition is True. */
export const isNodeReady = (node: NodeObject): boolean =>
  node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

export function workloadNodeOf(n: NodeObject): WorkloadNode {
  const status = n.status?.conditions?.find((c) => c.type === 'Ready')?.status;
  return {
    name: n.metadata.name ?? '',
    ready: status === 'True',
    readyStatus: status === 'True' || status === 'False' || status === 'Unknown' ? status : undefined,
    controlPlane: CONTROL_PLANE_NODE_ROLE_LABEL in (n.metadata.labels ?? {}),
    unreachable: n.spec?.taints?.some((t) => t.key === UNREACHABLE_TAINT && t.effect === 'NoExecute') === true,
    taints: (n.spec?.taints ?? []).map((t) => ({ key: t.key, effect: t.effect })),
    creationTimestamp: n.metadata.creationTimestamp,
  };
}

export function staticPodOf(p: PodObject): StaticPod {
  return {
    name: p.metadata.name ?? '',
    phase: p.status?.phase,
    conditions: (p.status?.conditions ?? []).map((c) => ({ type: c.type, status: c.status })),
    containers: (p.status?.containerStatuses ?? []).map((c) => ({
      name: c.name,
      waitingReason: c.state?.waiting?.reason,
      waitingMessage: c.state?.waiting?.message,
    })),
  };
}

/** Where a ClientWorkloadCluster reads Nodes: the client itself by default, or a Node cache. */
export interface NodeSource {
  list(labelSelector: string): Promise<readonly NodeObject[]>;
  get(name: string): Promise<NodeObject | undefined>;
}

const clientNodeSource = (client: Client): NodeSource => ({
  list: async (labelSelector) => (await client.list<NodeObject>('v1', 'Node', { labelSelector })).items,
  get: (name) => client.tryGet<NodeObject>({ apiVersion: 'v1', kind: 'Node', name }),
});

/** A workload cluster behind a Client (any Kubernetes-compatible API server, e.g. the in-memory provider's). */
export class ClientWorkloadCluster implements WorkloadCluster {
  private readonly nodeSource: NodeSource;
  private etcdAccess?: Promise<EtcdClientFor>;

  constructor(
    private readonly client: Client,
    /** etcd clients for this cluster, made on first use (a missing etcd CA fails the etcd calls only). */
    private readonly etcdClientFor: () => Promise<EtcdClientFor> = () =>
      Promise.reject(new Error('no etcd access configured for this workload cluster')),
    nodeSource?: NodeSource,
  ) {
    this.nodeSource = nodeSource ?? clientNodeSource(client);
  }

  private etcd(): Promise<EtcdClientFor> {
    this.etcdAccess ??= this.etcdClientFor();
    // A failure is not kept: the next call tries again (e.g. once the etcd CA Secret exists).
    this.etcdAccess.catch(() => (this.etcdAccess = undefined));
    return this.etcdAccess;
  }

  private async controlPlaneNodeNames(): Promise<string[]> {
    return (await this.nodeSource.list(CONTROL_PLANE_NODE_ROLE_LABEL)).map((n) => n.metadata.name ?? '');
  }

  async nodes(machineNodeNames: readonly string[] = []): Promise<WorkloadNode[]> {
    const controlPlane = await this.nodeSource.list(CONTROL_PLANE_NODE_ROLE_LABEL);
    const seen = new Set(controlPlane.map((n) => n.metadata.name));
    const unlabelled: NodeObject[] = [];
    for (const name of machineNodeNames) {
      if (seen.has(name)) continue;
      const node = await this.nodeSource.get(name);
      if (node) unlabelled.push(node);
    }
    return [...controlPlane, ...unlabelled].map(workloadNodeOf);
  }

  /** The kubelet mirror Pods of the static Pods (kubeadm labels them tier=control-plane). */
  async staticPods(): Promise<Map<string, StaticPod>> {
    let pods: PodObject[];
    try {
      pods = (
        await this.client.list<PodObject>('v1', 'Pod', {
          namespace: 'kube-system',
          labelSelector: 'tier=control-plane',
        })
      ).items;
    } catch (e) {
      // A server that does not serve Pods at all has none.
      if (e instanceof NoKindMatchError) pods = [];
      else throw e;
    }
    return new Map(pods.map((p) => [p.metadata.name ?? '', staticPodOf(p)]));
  }

  async etcdMembersAndAlarms(nodeNames: readonly string[]): Promise<EtcdMembersAndAlarms> {
    let etcd: EtcdClientFor;
    try {
      etcd = await this.etcd();
    } catch (e) {
      const message = (e as Error).message;
      return { error: message, machineMessage: `Failed to connect to etcd: ${message}` };
    }
    return readEtcdMembersAndAlarms(etcd, nodeNames);
  }

  kubeClient(): Client {
    return this.client;
  }

  async forwardEtcdLeadership(machine: Machine, leaderCandidate: Machine | undefined): Promise<void> {
    const from = machine.status?.nodeRef?.name;
    if (!from) return;
    const to = leaderCandidate?.status?.nodeRef?.name;
    if (!leaderCandidate) throw new Error('leader candidate cannot be nil');
    if (!to) throw new Error(`leader candidate Machine ${leaderCandidate.metadata.name} has no node reference`);
    await forwardEtcdLeadership(await this.etcd(), from, to);
  }

  async removeEtcdMemberForMachine(machine: Machine): Promise<void> {
    const nodeName = machine.status?.nodeRef?.name;
    if (!nodeName) return;
    await removeEtcdMember(await this.etcd(), { name: nodeName }, await this.controlPlaneNodeNames());
  }

  async removeEtcdMember(member: EtcdMember): Promise<void> {
    await removeEtcdMember(await this.etcd(), member, await this.controlPlaneNodeNames());
  }
}

/**
 * Workload clusters reached through their kubeconfig Secret (read via `managementClient`, e.g. the cached client).
 * Nodes are read from a per-cluster Node informer (WorkloadClusterCache), not listed per reconcile.
 */
export class KubeconfigWorkloadClusterProvider implements WorkloadClusterProvider {
  private readonly clients: WorkloadClusterClientProvider;
  private readonly nodeCache: WorkloadClusterCache;
  /** Whether close() stops the Node cache and clients (not when they are the manager's shared ones). */
  private readonly owned: boolean;

  private readonly etcd?: EtcdClientGeneratorFactory;

  constructor(
    /** The management cluster's client (own clients and Node cache), or a shared Node cache and its clients. */
    source: Client | WorkloadClusterCache,
    /** etcd clients per cluster; default (with a management client as `source`): through the API server. */
    etcd?: EtcdClientGeneratorFactory,
  ) {
    this.etcd = etcd ?? (source instanceof WorkloadClusterCache ? undefined : etcdClientGeneratorFactory(source));
    this.owned = !(source instanceof WorkloadClusterCache);
    this.nodeCache =
      source instanceof WorkloadClusterCache
        ? source
        : new WorkloadClusterCache(kubeconfigSecretClientProvider(source));
    this.clients = this.nodeCache.clients;
  }

  async forCluster(cluster: ClusterKey): Promise<WorkloadCluster> {
    const client = await this.clients(cluster);
    const nodes: NodeSource = {
      list: (labelSelector) => this.nodeCache.listNodes(cluster, { labelSelector }),
      get: (name) => this.nodeCache.node(cluster, name),
    };
    const etcd = this.etcd;
    return new ClientWorkloadCluster(client, etcd ? () => etcd(cluster) : undefined, nodes);
  }

  async close(): Promise<void> {
    if (!this.owned) return;
    // Informers first (their watches use the clients), then the clients.
    await this.nodeCache.closeAll();
    (this.clients as { closeAll?: () => void }).closeAll?.();
  }
}
