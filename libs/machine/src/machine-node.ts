// Finding a Machine's Node in its workload cluster by spec.providerID.
import { isNotFound, type KubeObject } from '@capi/controller-runtime';
import type { ClusterKey, WorkloadClusterClientProvider } from './workload-cluster';

const providerIdOf = (n: KubeObject) => (n.spec as { providerID?: string } | undefined)?.providerID;

/**
 * The Node with `providerID`. With `knownNodeName` (the Machine's status.nodeRef) it is one GET; only a Machine whose
 * Node is not known yet (or was replaced under another name) lists the workload cluster's Nodes — listing on every
 * reconcile made each reconcile cost O(Nodes), a rollout O(Machines²).
 */
export async function lookupNode(
  provider: WorkloadClusterClientProvider,
  cluster: ClusterKey,
  providerID: string,
  knownNodeName?: string,
): Promise<{ node?: KubeObject; error?: string }> {
  try {
    const client = await provider(cluster);
    if (knownNodeName) {
      const node = await client.tryGet<KubeObject>({ apiVersion: 'v1', kind: 'Node', name: knownNodeName }).catch((e) => {
        if (isNotFound(e)) return undefined;
        throw e;
      });
      if (node && providerIdOf(node) === providerID) return { node };
    }
    const nodes = await client.list<KubeObject>('v1', 'Node');
    return { node: nodes.items.find((n) => providerIdOf(n) === providerID) };
  } catch (e) {
    return { error: (e as Error).message ?? String(e) };
  }
}
