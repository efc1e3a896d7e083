// Clients for workload clusters (upstream controllers/clustercache/cluster_accessor_client.go, the client part; the
// Node caches and the health probe are in workload-cluster-cache.ts): by default read the `<cluster>-kubeconfig`
// Secret's `value` key and connect with it.
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient, type Client, type ClientRateLimit, type RequestRateLimiter } from '@capi/controller-runtime';

export interface ClusterKey {
  namespace: string;
  name: string;
}

export type WorkloadClusterClientProvider = (cluster: ClusterKey) => Promise<Client>;

/** Injection token of the WorkloadClusterClientProvider the Machine controller uses. */
export const WORKLOAD_CLUSTER_CLIENT_PROVIDER = Symbol.for('capi.WorkloadClusterClientProvider');

/** How workload cluster clients are built (upstream ClusterCache's client options, setup.ClusterCacheClientOptions). */
export interface WorkloadClusterClientOptions {
  /**
   * Client-side rate limit of each workload cluster's client (upstream --clustercache-client-qps/-burst): a token
   * bucket per client. A RequestRateLimiter may be given instead (tests); it is then shared by every client.
   */
  rateLimit?: ClientRateLimit | RequestRateLimiter;
}

/** Injection token of the WorkloadClusterClientOptions (optional; provided by WorkloadClusterClientOptionsModule). */
export const WORKLOAD_CLUSTER_CLIENT_OPTIONS = Symbol.for('capi.WorkloadClusterClientOptions');

export class WorkloadClusterConnectionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WorkloadClusterConnectionError';
  }
}

/** A workload cluster's kubeconfig as read from its `<name>-kubeconfig` Secret (key `value`). */
export interface KubeconfigSecret {
  kubeConfig: KubeConfig;
  /** The Secret's resourceVersion: a change means new credentials. */
  resourceVersion: string;
}

/** Reads and parses `<name>-kubeconfig` through `client`; a missing or unusable Secret is a connection error. */
export async function kubeConfigFromSecret(client: Client, cluster: ClusterKey): Promise<KubeconfigSecret> {
  const name = `${cluster.name}-kubeconfig`;
  const secret = await client.tryGet<{
    apiVersion: string;
    kind: string;
    metadata: { resourceVersion?: string };
    data?: Record<string, string>;
  }>({
    apiVersion: 'v1',
    kind: 'Secret',
    namespace: cluster.namespace,
    name,
  });
  if (!secret) throw new WorkloadClusterConnectionError(`kubeconfig Secret ${cluster.namespace}/${name} not found`);
  const value = secret.data?.value;
  if (!value)
    throw new WorkloadClusterConnectionError(`kubeconfig Secret ${cluster.namespace}/${name} has no "value" key`);
  const kubeConfig = new KubeConfig();
  try {
    kubeConfig.loadFromString(Buffer.from(value, 'base64').toString('utf8'));
  } catch (e) {
    throw new WorkloadClusterConnectionError(
      `kubeconfig Secret ${cluster.namespace}/${name} is not a valid kubeconfig: ${(e as Error).message}`,
    );
  }
  return { kubeConfig, resourceVersion: secret.metadata.resourceVersion ?? '' };
}

/**
 * Provider reading `<name>-kubeconfig` (key `value`) through `client`. A KubeClient is kept per cluster and rebuilt
 * when the Secret's resourceVersion changes; each has its own rate limit, as each of upstream's cluster accessors
 * has its own rest.Config.
 */
export function kubeconfigSecretClientProvider(
  client: Client,
  options: WorkloadClusterClientOptions = {},
): WorkloadClusterClientProvider & { closeAll(): void } {
  const clients = new Map<string, { rv: string; client: KubeClient }>();
  const provider = async (cluster: ClusterKey): Promise<Client> => {
    const name = `${cluster.name}-kubeconfig`;
    const { kubeConfig: kc, resourceVersion: rv } = await kubeConfigFromSecret(client, cluster);
    const key = `${cluster.namespace}/${cluster.name}`;
    const cached = clients.get(key);
    if (cached && cached.rv === rv) return cached.client;
    let kube: KubeClient;
    try {
      kube = new KubeClient(kc, { rateLimit: options.rateLimit });
    } catch (e) {
      throw new WorkloadClusterConnectionError(
        `kubeconfig Secret ${cluster.namespace}/${name} is not usable: ${(e as Error).message}`,
      );
    }
    cached?.client.close();
    clients.set(key, { rv, client: kube });
    return kube;
  };
  return Object.assign(provider, {
    closeAll: () => {
      for (const c of clients.values()) c.client.close();
      clients.clear();
    },
  });
}
