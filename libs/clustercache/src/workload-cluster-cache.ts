// Cached reads of workload cluster Nodes (upstream ClusterCache, reduced to Nodes): per cluster an InformerCache
// on the cluster's client with a Node informer indexed by spec.providerID, started on first use, rebuilt when the
// client provider hands out another client (the default one does when the kubeconfig Secret's resourceVersion
// changes), closed when the cluster goes away or the manager stops. Node event handlers registered with watchNodes
// follow every cluster's informer, including those created or rebuilt later.
// probe() is upstream's health probe (run periodically by WorkloadClusterHealthProbeJob): a cluster that stops
// answering is disconnected after the failure threshold and connected again, probe first, no sooner than the
// connection-creation retry interval; until then reads fail at once instead of waiting on a dead server.
import { Logger } from '@nestjs/common';
import { stripManagedFields, type KubeObject } from '@capi/apimachinery';
import { InformerCache, isApiError, type Client } from '@capi/controller-runtime';
import {
  connectionRetryWaitMs,
  decideAfterConnect,
  decideAfterProbe,
  DEFAULT_HEALTH_PROBE_OPTIONS,
  type HealthCheckingState,
  type HealthProbeOptions,
  type ProbeResult,
} from './health-probe';
import {
  WorkloadClusterConnectionError,
  type ClusterKey,
  type WorkloadClusterClientProvider,
} from './workload-cluster';

/** Injection token of the WorkloadClusterCache the Machine controller reads Nodes through. */
export const WORKLOAD_CLUSTER_CACHE = Symbol.for('capi.WorkloadClusterCache');

/** Field index of Nodes by spec.providerID (upstream index.NodeProviderIDField). */
export const NODE_PROVIDER_ID_FIELD = 'spec.providerID';

const providerIdOf = (n: KubeObject): string[] => {
  const id = (n.spec as { providerID?: unknown } | undefined)?.providerID;
  return typeof id === 'string' && id ? [id] : [];
};

export type NodeEventType = 'add' | 'update' | 'delete';
export type NodeEventHandler = (cluster: ClusterKey, node: KubeObject, type: NodeEventType) => void;

export interface WorkloadClusterCacheOptions {
  /** How long a first read waits for the Node informer's initial list (an unreachable cluster fails after it); default 10 s. */
  syncTimeoutMs?: number;
  /** Health probe timing (defaults: upstream's, see health-probe.ts). */
  healthProbe?: Partial<HealthProbeOptions>;
}

/** What health checking knows of a cluster (upstream GetHealthCheckingState), plus whether it is connected. */
export interface ClusterHealth extends HealthCheckingState {
  connected: boolean;
  /** While disconnected: when the next connection may be created (ms since the epoch). */
  retryAt?: number;
}

interface Entry {
  client: Client;
  cache: InformerCache;
  unsubscribe: (() => void)[];
}

/** One workload cluster (upstream clusterAccessor): its connection, if any, and its health checking state. */
interface Accessor {
  cluster: ClusterKey;
  entry?: Entry;
  health: HealthCheckingState;
  /** Set while disconnected by the probe or after a failed reconnection. */
  retryAt?: number;
  probing?: boolean;
  connecting?: Promise<Entry>;
}

const keyOf = (c: ClusterKey) => `${c.namespace}/${c.name}`;
const DEFAULT_SYNC_TIMEOUT_MS = 10_000;

/**
 * The probe request: upstream sends GET / with the probe timeout; the Client interface has no raw GET, so it reads
 * the kube-system Namespace (any answer but an error counts, NotFound included).
 */
const PROBE_REF = { apiVersion: 'v1', kind: 'Namespace', name: 'kube-system' };

export class WorkloadClusterCache {
  private readonly log = new Logger('WorkloadClusterCache');
  private readonly accessors = new Map<string, Accessor>();
  private readonly handlers = new Set<NodeEventHandler>();
  private closed = false;
  /** Health probe timing in effect. */
  readonly healthProbe: Readonly<HealthProbeOptions>;

  constructor(
    /** Where clients come from (and writes go through); its client identity decides when to rebuild. */
    readonly clients: WorkloadClusterClientProvider,
    private readonly opts: WorkloadClusterCacheOptions = {},
  ) {
    this.healthProbe = { ...DEFAULT_HEALTH_PROBE_OPTIONS, ...opts.healthProbe };
  }

  /**
   * The cluster's Node cache, started (not necessarily synced) on first use; connection errors are thrown. A cluster
   * the probe disconnected fails at once until its retry time, then is connected again only if it answers a probe.
   */
  async nodeCache(cluster: ClusterKey): Promise<InformerCache> {
    const key = keyOf(cluster);
    const known = this.accessors.get(key);
    if (known && !known.entry) return (await this.reconnectWhenDue(known)).cache;
    const client = await this.clients(cluster);
    const acc = this.accessors.get(key);
    if (acc && !acc.entry) return (await this.reconnectWhenDue(acc)).cache; // disconnected meanwhile
    if (acc?.entry?.client === client) return acc.entry.cache;
    if (this.closed) throw new Error('workload cluster cache is closed');
    const accessor = acc ?? { cluster, health: { consecutiveFailures: 0 } };
    this.accessors.set(key, accessor);
    // Creating a connection counts as a successful probe (upstream Connect).
    accessor.health = decideAfterConnect(accessor.health, true, Date.now(), this.healthProbe).state;
    return this.connect(accessor, client).cache;
  }

  /** Starts the cluster's Node informer on `client`, replacing the one it had. */
  private connect(accessor: Accessor, client: Client): Entry {
    const { cluster } = accessor;
    const key = keyOf(cluster);
    if (accessor.entry) this.stopQuietly(key, accessor.entry);
    // Nodes without managedFields, which no reader of this cache looks at (upstream ClusterCacheCacheOptions).
    const cache = new InformerCache(client, {
      syncTimeoutMs: this.opts.syncTimeoutMs ?? DEFAULT_SYNC_TIMEOUT_MS,
      informer: { transform: stripManagedFields },
    });
    cache.indexField('v1', 'Node', NODE_PROVIDER_ID_FIELD, providerIdOf);
    const informer = cache.informerFor('v1', 'Node');
    const entry: Entry = { client, cache, unsubscribe: [] };
    const emit = (node: KubeObject, type: NodeEventType) => {
      for (const h of [...this.handlers]) h({ namespace: cluster.namespace, name: cluster.name }, node, type);
    };
    entry.unsubscribe.push(
      informer.addEventHandler({
        onAdd: (n) => emit(n, 'add'),
        onUpdate: (_o, n) => emit(n, 'update'),
        onDelete: (n) => emit(n, 'delete'),
      }),
    );
    accessor.entry = entry;
    accessor.retryAt = undefined;
    cache.start();
    return entry;
  }

  /** The Node with `providerID` (read-only, from the cache), if any. */
  async nodeByProviderID(cluster: ClusterKey, providerID: string): Promise<KubeObject | undefined> {
    const cache = await this.nodeCache(cluster);
    const nodes = await cache.list<KubeObject>('v1', 'Node', {
      matchingFields: { [NODE_PROVIDER_ID_FIELD]: providerID },
      readOnly: true,
    });
    return nodes.items[0];
  }

  /** Nodes matching a label selector (read-only, from the cache). */
  async listNodes(cluster: ClusterKey, opts: { labelSelector?: string } = {}): Promise<readonly KubeObject[]> {
    const cache = await this.nodeCache(cluster);
    return (await cache.list<KubeObject>('v1', 'Node', { labelSelector: opts.labelSelector, readOnly: true })).items;
  }

  /** One Node by name (read-only, from the cache). */
  async node(cluster: ClusterKey, name: string): Promise<KubeObject | undefined> {
    const cache = await this.nodeCache(cluster);
    return cache.tryGet<KubeObject>({ apiVersion: 'v1', kind: 'Node', name }, { readOnly: true });
  }

  /** True when the cluster's Node informer runs (its events reach the handlers). */
  isWatching(cluster: ClusterKey): boolean {
    return !!this.accessors.get(keyOf(cluster))?.entry;
  }

  /** The cluster's health checking state; undefined for a cluster this cache never connected to. */
  healthCheckingState(cluster: ClusterKey): ClusterHealth | undefined {
    const acc = this.accessors.get(keyOf(cluster));
    return acc && { ...acc.health, connected: !!acc.entry, retryAt: acc.entry ? undefined : acc.retryAt };
  }

  /**
   * Calls `handler` for every Node add/update/delete in every cluster this cache reads (an informer's first list
   * arrives as adds). Returns an unsubscribe function.
   */
  watchNodes(handler: NodeEventHandler): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  /** Stops the cluster's informer (cluster deleted); the next read starts a new one. */
  close(cluster: ClusterKey): void {
    const key = keyOf(cluster);
    const acc = this.accessors.get(key);
    this.accessors.delete(key);
    if (acc?.entry) this.stopQuietly(key, acc.entry);
  }

  async closeAll(): Promise<void> {
    this.closed = true;
    const entries = [...this.accessors.values()].flatMap((a) => (a.entry ? [a.entry] : []));
    this.accessors.clear();
    await Promise.all(entries.map((e) => this.stop(e)));
  }

  /**
   * One round of health checking (upstream ClusterCache Reconcile, for every cluster at once): probes each connected
   * cluster and applies decideAfterProbe; connects again each disconnected one whose retry time has come.
   */
  async probe(): Promise<void> {
    const now = Date.now();
    const rounds: Promise<void>[] = [];
    for (const acc of this.accessors.values()) {
      if (acc.entry && !acc.probing) rounds.push(this.probeConnected(acc, acc.entry));
      else if (!acc.entry && !acc.connecting && connectionRetryWaitMs(acc.retryAt, now) === 0)
        rounds.push(
          this.reconnect(acc).then(
            () => undefined,
            (e) => this.log.debug((e as Error).message),
          ),
        );
    }
    await Promise.all(rounds);
  }

  private async probeConnected(acc: Accessor, entry: Entry): Promise<void> {
    acc.probing = true;
    const result = await this.runProbe(entry.client).finally(() => (acc.probing = false));
    const key = keyOf(acc.cluster);
    if (this.closed || this.accessors.get(key) !== acc || acc.entry !== entry) return; // changed meanwhile
    const { state, decision } = decideAfterProbe(acc.health, result.outcome, Date.now(), this.healthProbe);
    acc.health = state;
    if (decision.action === 'healthy') return;
    const failures = `${state.consecutiveFailures}/${this.healthProbe.failureThreshold}`;
    if (decision.action === 'countFailure') {
      this.log.debug(`health probe of workload cluster ${key} failed (${failures}): ${result.error}`);
      return;
    }
    this.log.warn(
      `disconnecting workload cluster ${key} after failed health probes (${failures}): ${result.error}; ` +
        `reconnecting in ${decision.retryAfterMs} ms at the earliest`,
    );
    acc.entry = undefined;
    acc.retryAt = Date.now() + decision.retryAfterMs;
    this.stopQuietly(key, entry);
  }

  /** A disconnected cluster's connection, created again if its retry time has come; else a connection error. */
  private reconnectWhenDue(acc: Accessor): Promise<Entry> {
    const waitMs = connectionRetryWaitMs(acc.retryAt, Date.now());
    if (waitMs === 0) return this.reconnect(acc);
    const key = keyOf(acc.cluster);
    const failures = acc.health.consecutiveFailures;
    const next = Math.ceil(waitMs / 1000);
    return Promise.reject(
      new WorkloadClusterConnectionError(
        `workload cluster ${key} is not connected (${failures} failed health probes); next connection attempt in ${next} s`,
      ),
    );
  }

  /** Connects a disconnected cluster again if it answers a probe (upstream Connect); one attempt at a time. */
  private reconnect(acc: Accessor): Promise<Entry> {
    acc.connecting ??= this.probeAndConnect(acc).finally(() => (acc.connecting = undefined));
    return acc.connecting;
  }

  private async probeAndConnect(acc: Accessor): Promise<Entry> {
    const key = keyOf(acc.cluster);
    let client: Client;
    let error: string | undefined;
    try {
      client = await this.clients(acc.cluster);
      error = (await this.runProbe(client)).error;
    } catch (e) {
      error = (e as Error).message;
    }
    if (this.closed || this.accessors.get(key) !== acc) throw new WorkloadClusterConnectionError(`${key} was closed`);
    const { state, retryAt } = decideAfterConnect(acc.health, error === undefined, Date.now(), this.healthProbe);
    acc.health = state;
    if (error !== undefined) {
      acc.retryAt = retryAt;
      throw new WorkloadClusterConnectionError(`connecting to workload cluster ${key} failed: ${error}`);
    }
    this.log.log(`reconnected to workload cluster ${key}`);
    return this.connect(acc, client!);
  }

  /** The probe request with the probe timeout; never throws. */
  private async runProbe(client: Client): Promise<{ outcome: ProbeResult; error?: string }> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer within ${this.healthProbe.timeoutMs} ms`)),
        this.healthProbe.timeoutMs,
      );
    });
    try {
      await Promise.race([client.tryGet(PROBE_REF), timeout]);
      return { outcome: 'success' };
    } catch (e) {
      const unauthorized = isApiError(e) && e.code === 401;
      return { outcome: unauthorized ? 'unauthorized' : 'failure', error: (e as Error).message ?? String(e) };
    } finally {
      clearTimeout(timer);
    }
  }

  private stopQuietly(key: string, entry: Entry): void {
    void this.stop(entry).catch((e) => this.log.warn(`stopping the Node cache of ${key}: ${(e as Error).message}`));
  }

  private async stop(entry: Entry): Promise<void> {
    for (const u of entry.unsubscribe) u();
    await entry.cache.stop();
  }
}
