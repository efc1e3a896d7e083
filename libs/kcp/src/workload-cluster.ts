// What KCP reads from a workload cluster (upstream internal.WorkloadCluster, reduced to what the health conditions and
// preflight checks need): Nodes, the kube-system static Pods of the control-plane components and the etcd members.
// The default implementation reads through a client built from the `<cluster>-kubeconfig` Secret; etcd is reached
// through an EtcdClient (swappable: KcpControllerOptions.etcdClientFactory).
import {
  SIMULATED_ETCD_MEMBER_KEY,
  SIMULATED_ETCD_MEMBER_LABEL,
  SIMULATED_NAMESPACE,
  type SimulatedEtcdMember,
} from '@capi/api';
import type { Machine } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import { NoKindMatchError, type Client } from '@capi/controller-runtime';
import {
  kubeconfigSecretClientProvider,
  WorkloadClusterCache,
  type ClusterKey,
  type WorkloadClusterClientProvider,
} from '@capi/clustercache';

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

/** An etcd member with its active alarms (etcd MemberList + AlarmList). */
export interface EtcdMember {
  id: string;
  name: string;
  alarms?: string[];
}

/** The etcd API KCP uses; a real implementation talks to an etcd Pod, the default reads the simulated members. */
export interface EtcdClient {
  members(): Promise<EtcdMember[]>;
}

export interface WorkloadCluster {
  /**
   * The control-plane Nodes (label node-role.kubernetes.io/control-plane, as upstream's getControlPlaneNodes), plus
   * those of `machineNodeNames` that exist without the label (upstream reads them by name to tell "no label" from
   * "no Node"). Worker Nodes are not read.
   */
  nodes(machineNodeNames?: readonly string[]): Promise<WorkloadNode[]>;
  /** kube-system static Pods of the control-plane components, by name (`<component>-<node>`). */
  staticPods(): Promise<Map<string, StaticPod>>;
  etcd(): EtcdClient;
  /**
   * Moves etcd leadership off the member of `machine` to the member of `leaderCandidate` when `machine`'s member leads
   * (upstream internal/workload_cluster_etcd.go ForwardEtcdLeadership).
   */
  forwardEtcdLeadership(machine: Machine, leaderCandidate: Machine | undefined): Promise<void>;
  /** Removes the etcd member of `machine`'s Node (upstream RemoveEtcdMemberForMachine); no member is not an error. */
  removeEtcdMemberForMachine(machine: Machine): Promise<void>;
  /** The workload cluster's API client (upstream Workload.Client), for the kubeadm objects KCP keeps in line. */
  kubeClient?(): Client;
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

function parseJson<T>(raw: unknown, what: string): T {
  if (typeof raw !== 'string') throw new Error(`${what} has no data`);
  try {
    return JSON.parse(raw) as T;
  } catch (e) {
    throw new Error(`${what} is not valid JSON: ${(e as Error).message}`);
  }
}

/** Etcd members published by a simulated workload cluster (see @capi/api simulated-control-plane). */
export class SimulatedEtcdClient implements EtcdClient {
  constructor(private readonly client: Client) {}

  async members(): Promise<EtcdMember[]> {
    const list = await this.client.list<KubeObject>('v1', 'ConfigMap', {
      namespace: SIMULATED_NAMESPACE,
      labelSelector: SIMULATED_ETCD_MEMBER_LABEL,
    });
    return list.items.map((cm) => {
      const m = parseJson<SimulatedEtcdMember>(
        (cm.data as Record<string, unknown> | undefined)?.[SIMULATED_ETCD_MEMBER_KEY],
        `ConfigMap ${SIMULATED_NAMESPACE}/${cm.metadata.name}`,
      );
      return { id: String(m.id), name: String(m.name), alarms: Array.isArray(m.alarms) ? m.alarms.map(String) : [] };
    });
  }
}

export type EtcdClientFactory = (cluster: ClusterKey, workloadClient: Client) => EtcdClient;

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
  private readonly etcdClient: EtcdClient;
  private readonly nodeSource: NodeSource;

  constructor(
    private readonly client: Client,
    etcdClient?: EtcdClient,
    nodeSource?: NodeSource,
  ) {
    this.etcdClient = etcdClient ?? new SimulatedEtcdClient(client);
    this.nodeSource = nodeSource ?? clientNodeSource(client);
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

  etcd(): EtcdClient {
    return this.etcdClient;
  }

  kubeClient(): Client {
    return this.client;
  }

  // Placeholder until the real etcd client replaces SimulatedEtcdClient: the simulated members cannot be changed.
  forwardEtcdLeadership(): Promise<void> {
    return Promise.reject(new Error('etcd leadership cannot be moved: no etcd client for this workload cluster'));
  }

  removeEtcdMemberForMachine(): Promise<void> {
    return Promise.reject(new Error('etcd members cannot be removed: no etcd client for this workload cluster'));
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

  constructor(
    /** The management cluster's client (own clients and Node cache), or a shared Node cache and its clients. */
    source: Client | WorkloadClusterCache,
    private readonly etcdClientFactory?: EtcdClientFactory,
  ) {
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
    return new ClientWorkloadCluster(client, this.etcdClientFactory?.(cluster, client), nodes);
  }

  async close(): Promise<void> {
    if (!this.owned) return;
    // Informers first (their watches use the clients), then the clients.
    await this.nodeCache.closeAll();
    (this.clients as { closeAll?: () => void }).closeAll?.();
  }
}
