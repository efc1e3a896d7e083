// One embedded API server per Cluster: the simulated workload cluster whose Nodes the in-memory provider "boots".
// Servers start on demand (first InMemoryCluster / InMemoryMachine reconcile of a Cluster) and live as long as the
// process; their kubeconfig is published in the `<cluster>-kubeconfig` Secret, so the core controllers reach them
// exactly like a real workload cluster.
import { ApiServer, renderKubeconfig, type Logger } from '@capi/apiserver';
import { CLUSTER_API_VERSION, CLUSTER_NAME_LABEL } from '@capi/api';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient, type Client, type KubeObject } from '@capi/controller-runtime';
import { CLUSTER_SECRET_TYPE, INMEMORY_FIELD_MANAGER, SECRET_VALUE_KEY, kubeconfigSecretName } from '../api/constants';

export interface ClusterKey {
  namespace: string;
  name: string;
}

/** The owning Cluster as far as the kubeconfig Secret's ownerReference needs it. */
export interface ClusterIdentity extends ClusterKey {
  uid: string;
}

export interface RunningWorkloadCluster {
  key: ClusterKey;
  server: ApiServer;
  url: string;
  host: string;
  port: number;
  token: string;
  caData?: string;
  /** Kubeconfig (YAML) pointing at the server. */
  kubeconfig: string;
  /** The provider's own client for the server (the simulated hosts register their Nodes through it). */
  client: KubeClient;
}

export interface WorkloadClustersOptions {
  /** Listen address (default 127.0.0.1). */
  host?: string;
  logger?: Logger;
}

const keyOf = (k: ClusterKey) => `${k.namespace}/${k.name}`;

/** The `<cluster>-kubeconfig` Secret for a running workload cluster (type cluster.x-k8s.io/secret, key `value`). */
export function kubeconfigSecret(cluster: ClusterIdentity, kubeconfig: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: kubeconfigSecretName(cluster.name),
      namespace: cluster.namespace,
      labels: { [CLUSTER_NAME_LABEL]: cluster.name },
      ownerReferences: [{ apiVersion: CLUSTER_API_VERSION, kind: 'Cluster', name: cluster.name, uid: cluster.uid, blockOwnerDeletion: true }],
    },
    type: CLUSTER_SECRET_TYPE,
    data: { [SECRET_VALUE_KEY]: Buffer.from(kubeconfig, 'utf8').toString('base64') },
  };
}

/** True when the stored Secret already carries exactly this kubeconfig. */
export function kubeconfigSecretUpToDate(existing: KubeObject | undefined, kubeconfig: string): boolean {
  const data = existing?.data as Record<string, string> | undefined;
  return !!data && data[SECRET_VALUE_KEY] === Buffer.from(kubeconfig, 'utf8').toString('base64');
}

/** Writes the kubeconfig Secret if it is missing or stale (one GET when it is current); true when it wrote. */
export async function ensureKubeconfigSecret(client: Client, cluster: ClusterIdentity, kubeconfig: string): Promise<boolean> {
  const existing = await client.tryGet({ apiVersion: 'v1', kind: 'Secret', namespace: cluster.namespace, name: kubeconfigSecretName(cluster.name) });
  if (kubeconfigSecretUpToDate(existing, kubeconfig)) return false;
  await client.apply(kubeconfigSecret(cluster, kubeconfig), { fieldManager: INMEMORY_FIELD_MANAGER, force: true });
  return true;
}

/**
 * The simulated workload cluster's parsed-object cache: 8 Mi characters of JSON (~2,000 Nodes; a rollout batch's Nodes
 * are what gets written). A real workload cluster's API server is not in the manager's process; this one is, so its
 * cache is kept small rather than holding a parsed copy of every Node (32 Mi, the default, at 10,000 Nodes ~100 MiB).
 */
export const WORKLOAD_PARSED_CACHE_CHARS = 8 * 2 ** 20;

export class WorkloadClusters {
  private readonly starting = new Map<string, Promise<RunningWorkloadCluster>>();
  private readonly running = new Map<string, RunningWorkloadCluster>();

  constructor(
    /** Management cluster client (writes the kubeconfig Secrets). */
    private readonly management: Client,
    private readonly opts: WorkloadClustersOptions = {},
  ) {}

  /** The running server of a cluster, if started. */
  get(key: ClusterKey): RunningWorkloadCluster | undefined {
    return this.running.get(keyOf(key));
  }

  list(): RunningWorkloadCluster[] {
    return [...this.running.values()];
  }

  /**
   * Starts the cluster's API server unless running (concurrent callers share one start) and writes its kubeconfig
   * Secret when it was just started. `preferredPort` (e.g. the endpoint recorded before a restart) is tried first.
   */
  async ensure(cluster: ClusterIdentity, preferredPort?: number): Promise<RunningWorkloadCluster> {
    const k = keyOf(cluster);
    const existing = this.running.get(k);
    if (existing) return existing;
    let pending = this.starting.get(k);
    if (!pending) {
      pending = this.start(cluster, preferredPort).finally(() => this.starting.delete(k));
      this.starting.set(k, pending);
    }
    return pending;
  }

  private async start(cluster: ClusterIdentity, preferredPort?: number): Promise<RunningWorkloadCluster> {
    const host = this.opts.host ?? '127.0.0.1';
    const server = await this.listen(host, preferredPort);
    const started = await server.start();
    const port = Number(new URL(started.url).port);
    const kubeconfig = renderKubeconfig({ ...started, name: cluster.name });
    const kc = new KubeConfig();
    kc.loadFromString(kubeconfig);
    const client = new KubeClient(kc, { fieldManager: INMEMORY_FIELD_MANAGER });
    const running: RunningWorkloadCluster = { key: { namespace: cluster.namespace, name: cluster.name }, server, host, port, kubeconfig, client, ...started };
    try {
      await ensureKubeconfigSecret(this.management, cluster, running.kubeconfig);
    } catch (e) {
      client.close();
      await server.stop();
      throw e;
    }
    this.running.set(keyOf(cluster), running);
    this.opts.logger?.info(`workload cluster ${keyOf(cluster)} serving on ${started.url}`);
    return running;
  }

  /** A started server, on `preferredPort` when it is free, else on a random port. */
  private async listen(host: string, preferredPort?: number): Promise<ApiServer> {
    const make = (port: number) => // Always HTTPS: @kubernetes/client-node refuses plain-http kubeconfigs without skip-verify.
    new ApiServer({ storage: { type: 'memory' }, host, port, tls: true, logger: this.opts.logger, parsedCacheChars: WORKLOAD_PARSED_CACHE_CHARS });
    if (preferredPort) {
      const server = make(preferredPort);
      try {
        await server.start();
        return server;
      } catch {
        await server.stop();
      }
    }
    const server = make(0);
    await server.start();
    return server;
  }

  /** Stops one cluster's server (its Nodes are gone with it). */
  async stop(key: ClusterKey): Promise<void> {
    const k = keyOf(key);
    await this.starting.get(k)?.catch(() => undefined);
    const running = this.running.get(k);
    this.running.delete(k);
    running?.client.close();
    await running?.server.stop();
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.starting.values()].map((p) => p.catch(() => undefined)));
    const all = [...this.running.values()];
    this.running.clear();
    for (const r of all) r.client.close();
    await Promise.all(all.map((r) => r.server.stop()));
  }
}
