// Access to a workload cluster the way every Cluster API provider gets it: the `<cluster>-kubeconfig` Secret.
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient, type Client } from '@capi/controller-runtime';

export class WorkloadClients {
  private readonly clients = new Map<string, { kubeconfig: string; client: KubeClient }>();

  constructor(private readonly management: Client) {}

  /** The workload cluster's client, or undefined while its kubeconfig Secret does not exist yet. */
  async get(namespace: string, cluster: string): Promise<Client | undefined> {
    const secret = await this.management.tryGet<{
      apiVersion: string;
      kind: string;
      metadata: object;
      data?: Record<string, string>;
    }>({
      apiVersion: 'v1',
      kind: 'Secret',
      namespace,
      name: `${cluster}-kubeconfig`,
    });
    const value = secret?.data?.value;
    if (!value) return undefined;
    const kubeconfig = Buffer.from(value, 'base64').toString('utf8');
    const key = `${namespace}/${cluster}`;
    const cached = this.clients.get(key);
    if (cached?.kubeconfig === kubeconfig) return cached.client;
    cached?.client.close();
    const kc = new KubeConfig();
    kc.loadFromString(kubeconfig);
    const client = new KubeClient(kc);
    this.clients.set(key, { kubeconfig, client });
    return client;
  }

  close(): void {
    for (const c of this.clients.values()) c.client.close();
    this.clients.clear();
  }
}

/** The Node the example "host" runs: Ready, with the kubelet at `version`. */
export function nodeIntent(name: string, providerID: string) {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name } },
    spec: { providerID },
  };
}

export function nodeStatusIntent(name: string, kubeletVersion: string | undefined) {
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name },
    status: {
      nodeInfo: { kubeletVersion: kubeletVersion ?? '' },
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'KubeletReady',
          message: 'example host is ready',
          lastHeartbeatTime: now,
          lastTransitionTime: now,
        },
      ],
    },
  };
}

export const EXAMPLE_FIELD_MANAGER = 'capi-provider-example';
