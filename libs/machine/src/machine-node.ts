// Finding a Machine's Node in its workload cluster by spec.providerID.
import type { KubeObject } from '@capi/controller-runtime';
import type { ClusterKey, WorkloadClusterClientProvider } from './workload-cluster';

export async function lookupNode(
  provider: WorkloadClusterClientProvider,
  cluster: ClusterKey,
  providerID: string,
): Promise<{ node?: KubeObject; error?: string }> {
  try {
    const client = await provider(cluster);
    const nodes = await client.list<KubeObject>('v1', 'Node');
    return { node: nodes.items.find((n) => (n.spec as { providerID?: string } | undefined)?.providerID === providerID) };
  } catch (e) {
    return { error: (e as Error).message ?? String(e) };
  }
}
