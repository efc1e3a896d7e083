// What KCP needs from a workload cluster (upstream internal.WorkloadCluster, reduced to Node health for preflight).
// The default implementation reads Nodes through a client built from the `<cluster>-kubeconfig` Secret.
import type { Client, KubeObject } from '@capi/controller-runtime';
import { kubeconfigSecretClientProvider, type ClusterKey, type WorkloadClusterClientProvider } from '@capi/machine';

export interface WorkloadNode {
  name: string;
  ready: boolean;
  /** Carries the node-role.kubernetes.io/control-plane label (kubeadm sets it on control-plane Nodes). */
  controlPlane: boolean;
}

export interface WorkloadCluster {
  nodes(): Promise<WorkloadNode[]>;
}

export const CONTROL_PLANE_NODE_ROLE_LABEL = 'node-role.kubernetes.io/control-plane';

export interface WorkloadClusterProvider {
  forCluster(cluster: ClusterKey): Promise<WorkloadCluster>;
  close?(): void;
}

/** Injection token of the KCP's WorkloadClusterProvider. */
export const KCP_WORKLOAD_CLUSTER_PROVIDER = Symbol.for('capi.kcp.WorkloadClusterProvider');

interface NodeObject extends KubeObject {
  status?: { conditions?: { type: string; status: string }[] };
}

/** Node readiness of a node object: its Ready condition is True. */
export const isNodeReady = (node: NodeObject): boolean => node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

/** A workload cluster behind a Client (any Kubernetes-compatible API server, e.g. the in-memory provider's). */
export class ClientWorkloadCluster implements WorkloadCluster {
  constructor(private readonly client: Client) {}

  async nodes(): Promise<WorkloadNode[]> {
    const nodes = await this.client.list<NodeObject>('v1', 'Node');
    return nodes.items.map((n) => ({ name: n.metadata.name ?? '', ready: isNodeReady(n), controlPlane: CONTROL_PLANE_NODE_ROLE_LABEL in (n.metadata.labels ?? {}) }));
  }
}

/** Workload clusters reached through their kubeconfig Secret (read via `managementClient`, e.g. the cached client). */
export class KubeconfigWorkloadClusterProvider implements WorkloadClusterProvider {
  private readonly clients: WorkloadClusterClientProvider & { closeAll(): void };

  constructor(managementClient: Client) {
    this.clients = kubeconfigSecretClientProvider(managementClient);
  }

  async forCluster(cluster: ClusterKey): Promise<WorkloadCluster> {
    return new ClientWorkloadCluster(await this.clients(cluster));
  }

  close(): void {
    this.clients.closeAll();
  }
}

/** In-memory workload clusters for tests: Node readiness set by hand, per cluster. */
export class InMemoryWorkloadClusterProvider implements WorkloadClusterProvider {
  private readonly byCluster = new Map<string, Map<string, WorkloadNode>>();

  setNode(cluster: ClusterKey, node: WorkloadNode): void {
    const k = `${cluster.namespace}/${cluster.name}`;
    if (!this.byCluster.has(k)) this.byCluster.set(k, new Map());
    this.byCluster.get(k)!.set(node.name, { ...node });
  }

  async forCluster(cluster: ClusterKey): Promise<WorkloadCluster> {
    const nodes = this.byCluster.get(`${cluster.namespace}/${cluster.name}`) ?? new Map<string, WorkloadNode>();
    return { nodes: async () => [...nodes.values()].map((n) => ({ ...n })) };
  }
}
