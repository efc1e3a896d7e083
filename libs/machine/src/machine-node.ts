// Finding a Machine's Node in its workload cluster by spec.providerID.
import type { Client, KubeObject } from '@capi/controller-runtime';
import type { ClusterKey, WorkloadClusterClientProvider } from './workload-cluster';

const providerIdOf = (n: KubeObject) => (n.spec as { providerID?: string } | undefined)?.providerID;

/**
 * The Node with `providerID`. With `knownNodeName` (the Machine's status.nodeRef) it is one GET; only a Machine whose
 * Node is not known yet (or was replaced under another name) lists the workload cluster's Nodes — listing on every
 * reconcile made each reconcile cost O(Nodes), a rollout O(Machines²).
 */
export async function findNodeByProviderID(client: Client, providerID: string, knownNodeName?: string): Promise<KubeObject | undefined> {
  if (knownNodeName) {
    const node = await client.tryGet<KubeObject>({ apiVersion: 'v1', kind: 'Node', name: knownNodeName });
    if (node && providerIdOf(node) === providerID) return node;
  }
  const nodes = await client.list<KubeObject>('v1', 'Node');
  return nodes.items.find((n) => providerIdOf(n) === providerID);
}

/** findNodeByProviderID in the Machine's workload cluster; connection and read errors are returned, not thrown. */
export async function lookupNode(
  provider: WorkloadClusterClientProvider,
  cluster: ClusterKey,
  providerID: string,
  knownNodeName?: string,
): Promise<{ node?: KubeObject; error?: string }> {
  try {
    return { node: await findNodeByProviderID(await provider(cluster), providerID, knownNodeName) };
  } catch (e) {
    return { error: (e as Error).message ?? String(e) };
  }
}
