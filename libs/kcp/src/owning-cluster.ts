// The KubeadmControlPlane's Cluster, both ways: the Cluster that owns a KCP (upstream util.GetOwnerCluster, falling
// back to the cluster-name label) and the KCP a Cluster points at (the Cluster watch's map function).
import { ClusterGVK, CONTROLPLANE_GROUP, type Cluster, type KubeadmControlPlane } from '@capi/api';
import { groupOf } from '@capi/apimachinery';
import type { Client, Request } from '@capi/controller-runtime';

/** Cluster → its KubeadmControlPlane (spec.controlPlaneRef). */
export function kcpRequestsForCluster(cluster: Cluster): Request[] {
  const ref = cluster.spec?.controlPlaneRef;
  if (!ref || ref.kind !== 'KubeadmControlPlane' || ref.apiGroup !== CONTROLPLANE_GROUP || !cluster.metadata.namespace)
    return [];
  return [{ namespace: cluster.metadata.namespace, name: ref.name }];
}

/** The Cluster owning the KCP; undefined when it has none yet or it does not exist. */
export async function getOwningCluster(client: Client, kcp: KubeadmControlPlane): Promise<Cluster | undefined> {
  const ref = kcp.metadata.ownerReferences?.find(
    (r) => r.kind === 'Cluster' && groupOf(r.apiVersion) === 'cluster.x-k8s.io',
  );
  const name = ref?.name ?? kcp.metadata.labels?.['cluster.x-k8s.io/cluster-name'];
  if (!name) return undefined;
  return client.tryGet<Cluster>({
    apiVersion: ClusterGVK.apiVersion,
    kind: 'Cluster',
    namespace: kcp.metadata.namespace,
    name,
  });
}
