// Finding a Machine's Node in its workload cluster by spec.providerID, from the workload cluster cache.
import type { KubeObject } from '@capi/apimachinery';
import { WorkloadClusterConnectionError, type ClusterKey, type WorkloadClusterCache } from '@capi/clustercache';

/**
 * The Machine's Node from the workload cluster's Node cache (providerID index): no request per lookup once the
 * cluster's informer has synced. Connection and read errors are returned, not thrown; `connectionError` tells the
 * first (upstream's ClusterCache.GetClient failing) from the second (getNode failing).
 */
export async function lookupNode(
  cache: WorkloadClusterCache,
  cluster: ClusterKey,
  providerID: string,
): Promise<{ node?: KubeObject; error?: string; connectionError?: boolean }> {
  try {
    return { node: await cache.nodeByProviderID(cluster, providerID) };
  } catch (e) {
    return {
      error: (e as Error).message ?? String(e),
      ...(e instanceof WorkloadClusterConnectionError ? { connectionError: true } : {}),
    };
  }
}

/** Upstream noderefutil.IsNodeUnreachable: the Node's Ready condition is Unknown (the kubelet stopped posting status). */
export function isNodeUnreachable(node: KubeObject): boolean {
  const conditions = (node.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions;
  return conditions?.some((c) => c.type === 'Ready' && c.status === 'Unknown') === true;
}
