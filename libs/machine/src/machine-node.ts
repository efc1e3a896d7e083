// Finding a Machine's Node in its workload cluster by spec.providerID: over a client (findNodeByProviderID, for
// callers without a cache) or from the workload cluster cache (lookupNode, the Machine controller).
import type { Client, KubeObject } from '@capi/controller-runtime';
import type { ClusterKey } from './workload-cluster';
import type { WorkloadClusterCache } from './workload-cluster-cache';

const providerIdOf = (n: KubeObject) => (n.spec as { providerID?: string } | undefined)?.providerID;

/**
 * The Node with `providerID`. With `knownNodeName` (the Machine's status.nodeRef) it is one GET; only a Machine whose
 * Node is not known yet (or was replaced under another name) lists the workload cluster's Nodes — listing on every
 * reconcile made each reconcile cost O(Nodes), a rollout O(Machines²).
 */
export async function findNodeByProviderID(
  client: Client,
  providerID: string,
  knownNodeName?: string,
): Promise<KubeObject | undefined> {
  if (knownNodeName) {
    const node = await client.tryGet<KubeObject>({ apiVersion: 'v1', kind: 'Node', name: knownNodeName });
    if (node && providerIdOf(node) === providerID) return node;
  }
  const nodes = await client.list<KubeObject>('v1', 'Node');
  return nodes.items.find((n) => providerIdOf(n) === providerID);
}

/**
 * The Machine's Node from the workload cluster's Node cache (providerID index): no request per lookup once the
 * cluster's informer has synced. Connection and read errors are returned, not thrown.
 */
export async function lookupNode(
  cache: WorkloadClusterCache,
  cluster: ClusterKey,
  providerID: string,
): Promise<{ node?: KubeObject; error?: string }> {
  try {
    return { node: await cache.nodeByProviderID(cluster, providerID) };
  } catch (e) {
    return { error: (e as Error).message ?? String(e) };
  }
}
