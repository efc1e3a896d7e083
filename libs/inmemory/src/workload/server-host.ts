// Where the simulated workload clusters' API servers run: in this process (the default: one process, nothing to
// clean up), or all in one child process (ChildProcessWorkloadServerHost). A real workload cluster's API server is
// not in the manager's process, and measuring the manager's memory and CPU at fleet scale (tools/bench) means keeping
// the simulated ones out of it. WorkloadClusters reaches a server only through its URL, token and CA (kubeconfig), so
// both behave the same.
import { ApiServer, type Logger, type RequestCounts, type StartedServer } from '@capi/apiserver';
import type { KeyPair } from '@capi/certs';
import type { EtcdBackend } from '../etcd/etcd-backend';
import type { WorkloadPodsOptions, WorkloadSimulator } from '../pods/simulator';

export type StorageUsage = ReturnType<ApiServer['storageUsage']>;

/**
 * The simulated workload cluster's parsed-object cache: 8 Mi characters of JSON (~2,000 Nodes; a rollout batch's Nodes
 * are what gets written). A real workload cluster's API server is not in the manager's process; this one may be, so
 * its cache is kept small rather than holding a parsed copy of every Node (32 Mi, the default, at 10,000 Nodes ~100 MiB).
 */
export const WORKLOAD_PARSED_CACHE_CHARS = 8 * 2 ** 20;

/** One running workload API server, wherever it runs. */
export interface WorkloadServer extends StartedServer {
  readonly port: number;
  /** False once stopped, or once the process serving it is gone (its data with it): the cluster must start again. */
  readonly alive: boolean;
  /**
   * Calls `listener` once if the server is lost without stop(): the process serving it exited, and its data went with
   * it. In-process servers are never lost that way (they go with the manager).
   */
  onLost(listener: (reason: string) => void): void;
  /** Requests the server counted since the last reset (tests, bench). */
  countRequests(): Promise<RequestCounts>;
  resetRequests(): Promise<void>;
  storageUsage(): Promise<StorageUsage>;
  /**
   * Hands the cluster's etcd CA to the server's etcd members (their serving certificates, client verification): a
   * port-forward to an etcd Pod reaches its member only once they have it.
   */
  setEtcdCA(ca: KeyPair): Promise<void>;
  stop(): Promise<void>;
}

/** What runs beside a workload API server. */
export interface WorkloadServerStartOptions {
  /** Simulate the cluster's Pods (kubelets, scheduler, workload controllers, volumes: pods/simulator.ts). */
  pods?: WorkloadPodsOptions;
}

export interface WorkloadServerHost {
  /** Starts a server on `host`, on `preferredPort` when it is free, else on a random port. */
  start(host: string, preferredPort?: number, opts?: WorkloadServerStartOptions): Promise<WorkloadServer>;
  /** The process the servers run in (bench: its RSS); undefined while none runs. */
  pid(): number | undefined;
  /** Stops the servers still running and releases the host (a child process exits). */
  close(): Promise<void>;
}

interface LocalServer {
  server: ApiServer;
  started: StartedServer;
  /** The etcd members behind the server's port-forwards. */
  etcd: LazyEtcd;
  /** The simulated kubelets and controllers, when the cluster's Pods are simulated. */
  simulator?: WorkloadSimulator;
}

/**
 * A server's etcd members, loaded on first use (a CA handed over, a port-forward): their modules (gRPC, a Kubernetes
 * client) stay out of a process whose clusters have no control plane yet, e.g. the child process while it starts.
 */
class LazyEtcd {
  private backend?: Promise<EtcdBackend>;

  constructor(private readonly started: StartedServer) {}

  get(): Promise<EtcdBackend> {
    this.backend ??= import('../etcd/etcd-backend').then((m) => m.EtcdBackend.forServer(this.started));
    return this.backend;
  }

  async close(): Promise<void> {
    await (await this.backend?.catch(() => undefined))?.close();
  }
}

/**
 * An ApiServer in this process, started on `preferredPort` when it is free, else on a random port; port-forwards to
 * its etcd Pods reach the simulated etcd members (EtcdBackend), in this process too.
 */
async function startLocal(
  host: string,
  preferredPort: number | undefined,
  logger?: Logger,
  opts: WorkloadServerStartOptions = {},
): Promise<LocalServer> {
  const listen = async (port: number): Promise<LocalServer> => {
    let etcd: LazyEtcd | undefined;
    // Always HTTPS: @kubernetes/client-node refuses plain-http kubeconfigs without skip-verify.
    const server = new ApiServer({
      storage: { type: 'memory' },
      host,
      port,
      tls: true,
      logger,
      parsedCacheChars: WORKLOAD_PARSED_CACHE_CHARS,
      portForward: async (target) => {
        if (!etcd) throw new Error('the workload API server is starting');
        return (await etcd.get()).portForward(target);
      },
    });
    try {
      const started = await server.start();
      etcd = new LazyEtcd(started);
      // Loaded only when used, as the etcd members are (LazyEtcd).
      const simulator = opts.pods
        ? (await import('../pods/simulator')).WorkloadSimulator.forServer(started, opts.pods, logger)
        : undefined;
      simulator?.start();
      return { server, started, etcd, simulator };
    } catch (e) {
      await server.stop();
      throw e;
    }
  };
  if (preferredPort) {
    const onPreferred = await listen(preferredPort).catch(() => undefined);
    if (onPreferred) return onPreferred;
  }
  return listen(0);
}

/** Servers in this process (the default). */
export class InProcessWorkloadServerHost implements WorkloadServerHost {
  private readonly servers = new Set<WorkloadServer>();

  constructor(private readonly logger?: Logger) {}

  async start(host: string, preferredPort?: number, opts?: WorkloadServerStartOptions): Promise<WorkloadServer> {
    const { server, started, etcd, simulator } = await startLocal(host, preferredPort, this.logger, opts);
    const servers = this.servers;
    let alive = true;
    const handle: WorkloadServer = {
      ...started,
      port: Number(new URL(started.url).port),
      get alive() {
        return alive;
      },
      onLost: () => undefined,
      countRequests: async () => server.countRequests(),
      resetRequests: async () => server.resetRequests(),
      storageUsage: async () => server.storageUsage(),
      setEtcdCA: async (ca) => (await etcd.get()).setCA(ca),
      async stop() {
        alive = false;
        servers.delete(handle);
        await simulator?.stop();
        await etcd.close();
        await server.stop();
      },
    };
    servers.add(handle);
    return handle;
  }

  pid(): number {
    return process.pid;
  }

  async close(): Promise<void> {
    await Promise.all([...this.servers].map((s) => s.stop()));
  }
}
