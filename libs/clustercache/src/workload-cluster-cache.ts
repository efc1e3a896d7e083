// Cached reads of workload cluster Nodes (upstream ClusterCache, reduced to Nodes): per cluster an InformerCache
// on the cluster's client with a Node informer indexed by spec.providerID, started on first use, rebuilt when the
// client provider hands out another client (the default one does when the kubeconfig Secret's resourceVersion
// changes), closed when the cluster goes away or the manager stops. Node event handlers registered with watchNodes
// follow every cluster's informer, including those created or rebuilt later.
import { Logger } from '@nestjs/common';
import { InformerCache, type Client, type KubeObject } from '@capi/controller-runtime';
import type { ClusterKey, WorkloadClusterClientProvider } from './workload-cluster';

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
}

interface Entry {
  client: Client;
  cache: InformerCache;
  unsubscribe: (() => void)[];
}

const keyOf = (c: ClusterKey) => `${c.namespace}/${c.name}`;

export class WorkloadClusterCache {
  private readonly log = new Logger('WorkloadClusterCache');
  private readonly entries = new Map<string, Entry>();
  private readonly handlers = new Set<NodeEventHandler>();
  private closed = false;

  constructor(
    /** Where clients come from (and writes go through); its client identity decides when to rebuild. */
    readonly clients: WorkloadClusterClientProvider,
    private readonly opts: WorkloadClusterCacheOptions = {},
  ) {}

  /** The cluster's Node cache, started (not necessarily synced) on first use; connection errors are thrown. */
  async nodeCache(cluster: ClusterKey): Promise<InformerCache> {
    const client = await this.clients(cluster);
    const key = keyOf(cluster);
    const existing = this.entries.get(key);
    if (existing?.client === client) return existing.cache;
    if (existing) this.drop(key, existing);
    if (this.closed) throw new Error('workload cluster cache is closed');
    const cache = new InformerCache(client, { syncTimeoutMs: this.opts.syncTimeoutMs ?? 10_000 });
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
    this.entries.set(key, entry);
    cache.start();
    return cache;
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
    return this.entries.has(keyOf(cluster));
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
    const entry = this.entries.get(key);
    if (entry) this.drop(key, entry);
  }

  async closeAll(): Promise<void> {
    this.closed = true;
    const all = [...this.entries.entries()];
    this.entries.clear();
    await Promise.all(all.map(([, e]) => this.stop(e)));
  }

  private drop(key: string, entry: Entry): void {
    this.entries.delete(key);
    void this.stop(entry).catch((e) => this.log.warn(`stopping the Node cache of ${key}: ${(e as Error).message}`));
  }

  private async stop(entry: Entry): Promise<void> {
    for (const u of entry.unsubscribe) u();
    await entry.cache.stop();
  }
}
