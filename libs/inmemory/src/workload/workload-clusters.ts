// One embedded API server per Cluster: the simulated workload cluster whose Nodes the in-memory provider "boots".
// Servers start on demand (first InMemoryCluster / InMemoryMachine reconcile of a Cluster) and live as long as the
// process; their kubeconfig is published in the `<cluster>-kubeconfig` Secret, so the core controllers reach them
// exactly like a real workload cluster.
import { renderKubeconfig, type Logger } from '@capi/apiserver';
import { CLUSTER_API_VERSION, CLUSTER_NAME_LABEL } from '@capi/api';
import { KubeConfig } from '@kubernetes/client-node';
import type { KubeObject } from '@capi/apimachinery';
import { KubeClient, type Client } from '@capi/controller-runtime';
import { CLUSTER_SECRET_TYPE, INMEMORY_FIELD_MANAGER, SECRET_VALUE_KEY, kubeconfigSecretName } from '../api/constants';
import { InProcessWorkloadServerHost, type WorkloadServer, type WorkloadServerHost } from './server-host';
import type { WorkloadPodsOptions } from '../pods/simulator';
import { podForceDeleter, type ForceDeletePod } from '../pods/force-delete';

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
  /** The cluster's API server, in this process or in the host's child process. */
  server: WorkloadServer;
  url: string;
  host: string;
  port: number;
  token: string;
  caData?: string;
  /** Kubeconfig (YAML) pointing at the server. */
  kubeconfig: string;
  /** The provider's own client for the server (the simulated hosts register their Nodes through it). */
  client: KubeClient;
  /** Deletes a Pod with grace 0 (a host that goes takes its mirror Pods: no kubelet is left to finish them). */
  forceDeletePod: ForceDeletePod;
}

export interface WorkloadClustersOptions {
  /** Listen address (default 127.0.0.1). */
  host?: string;
  logger?: Logger;
  /** Where the servers run (default: in this process, with `logger`). */
  servers?: WorkloadServerHost;
  /** Simulate each cluster's Pods beside its server (default: no Pods but the control plane's mirror Pods). */
  pods?: WorkloadPodsOptions;
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
      ownerReferences: [
        {
          apiVersion: CLUSTER_API_VERSION,
          kind: 'Cluster',
          name: cluster.name,
          uid: cluster.uid,
          blockOwnerDeletion: true,
        },
      ],
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
export async function ensureKubeconfigSecret(
  client: Client,
  cluster: ClusterIdentity,
  kubeconfig: string,
): Promise<boolean> {
  const existing = await client.tryGet({
    apiVersion: 'v1',
    kind: 'Secret',
    namespace: cluster.namespace,
    name: kubeconfigSecretName(cluster.name),
  });
  if (kubeconfigSecretUpToDate(existing, kubeconfig)) return false;
  await client.apply(kubeconfigSecret(cluster, kubeconfig), { fieldManager: INMEMORY_FIELD_MANAGER, force: true });
  return true;
}

export class WorkloadClusters {
  private readonly starting = new Map<string, Promise<RunningWorkloadCluster>>();
  private readonly running = new Map<string, RunningWorkloadCluster>();
  private readonly servers: WorkloadServerHost;
  private readonly lostListeners = new Set<(key: ClusterKey, reason: string) => void>();

  constructor(
    /** Management cluster client (writes the kubeconfig Secrets). */
    private readonly management: Client,
    private readonly opts: WorkloadClustersOptions = {},
  ) {
    this.servers = opts.servers ?? new InProcessWorkloadServerHost(opts.logger);
  }

  /** The process the servers run in (bench: its RSS); undefined while none runs. */
  serversPid(): number | undefined {
    return this.servers.pid();
  }

  /**
   * Calls `listener` when a running cluster's server is lost without stop() (its process died, a child-process
   * host): the cluster's Nodes are gone, so whoever re-creates them must reconcile again. Returns an unsubscribe.
   */
  onLost(listener: (key: ClusterKey, reason: string) => void): () => void {
    this.lostListeners.add(listener);
    return () => this.lostListeners.delete(listener);
  }

  /** The running server of a cluster, if started (and still alive). */
  get(key: ClusterKey): RunningWorkloadCluster | undefined {
    const running = this.running.get(keyOf(key));
    return running?.server.alive ? running : undefined;
  }

  list(): RunningWorkloadCluster[] {
    return [...this.running.values()].filter((r) => r.server.alive);
  }

  /**
   * Starts the cluster's API server unless running (concurrent callers share one start) and writes its kubeconfig
   * Secret when it was just started. `preferredPort` (e.g. the endpoint recorded before a restart) is tried first.
   */
  async ensure(cluster: ClusterIdentity, preferredPort?: number): Promise<RunningWorkloadCluster> {
    const k = keyOf(cluster);
    const existing = this.running.get(k);
    if (existing?.server.alive) return existing;
    // Its process died (a child-process host): the Nodes are gone with it; start again, as after a restart.
    if (existing) this.forget(k, existing);
    let pending = this.starting.get(k);
    if (!pending) {
      pending = this.start(cluster, preferredPort).finally(() => this.starting.delete(k));
      this.starting.set(k, pending);
    }
    return pending;
  }

  private async start(cluster: ClusterIdentity, preferredPort?: number): Promise<RunningWorkloadCluster> {
    const host = this.opts.host ?? '127.0.0.1';
    const server = await this.servers.start(host, preferredPort, this.opts.pods ? { pods: this.opts.pods } : undefined);
    const { url, token, caData, port } = server;
    const kubeconfig = renderKubeconfig({ url, token, caData, name: cluster.name });
    const kc = new KubeConfig();
    kc.loadFromString(kubeconfig);
    const client = new KubeClient(kc, { fieldManager: INMEMORY_FIELD_MANAGER });
    const running: RunningWorkloadCluster = {
      key: { namespace: cluster.namespace, name: cluster.name },
      server,
      host,
      port,
      kubeconfig,
      client,
      forceDeletePod: podForceDeleter(kubeconfig),
      url,
      token,
      caData,
    };
    try {
      await ensureKubeconfigSecret(this.management, cluster, running.kubeconfig);
    } catch (e) {
      client.close();
      await server.stop();
      throw e;
    }
    this.running.set(keyOf(cluster), running);
    server.onLost((reason) => this.lost(running, reason));
    // Lost while its Secret was being written (listeners registered after the loss are never called): report it now.
    if (!server.alive) this.lost(running, `its process exited while ${url} was starting`);
    this.opts.logger?.info(`workload cluster ${keyOf(cluster)} serving on ${url}`);
    return running;
  }

  /** Stops one cluster's server (its Nodes are gone with it). */
  async stop(key: ClusterKey): Promise<void> {
    const k = keyOf(key);
    await this.starting.get(k)?.catch(() => undefined);
    const running = this.running.get(k);
    if (!running) return;
    this.forget(k, running);
    await running.server.stop();
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.starting.values()].map((p) => p.catch(() => undefined)));
    const all = [...this.running.values()];
    this.running.clear();
    for (const r of all) r.client.close();
    await Promise.all(all.map((r) => r.server.stop()));
    await this.servers.close();
  }

  private lost(running: RunningWorkloadCluster, reason: string): void {
    const k = keyOf(running.key);
    if (this.running.get(k) !== running) return;
    this.forget(k, running);
    this.opts.logger?.error(`workload cluster ${k} lost its API server: ${reason}`);
    for (const listener of [...this.lostListeners]) {
      try {
        listener(running.key, reason);
      } catch (e) {
        this.opts.logger?.error(`workload cluster ${k}: a lost listener failed: ${(e as Error).message}`);
      }
    }
  }

  private forget(k: string, running: RunningWorkloadCluster): void {
    this.running.delete(k);
    running.client.close();
  }
}
