// A MachineDeployment belongs to its Cluster (upstream core/reconcilers/machinedeployment/
// machinedeployment_controller.go reconcile): the cluster-name label and an ownerReference to the Cluster, which the
// Cluster's deletion looks for (it deletes the descendants it owns, then waits for them).
import { CLUSTER_NAME_LABEL, type Cluster, type MachineDeployment } from '@capi/api';
import { ensureOwnerRef, jsonEqual, type OwnerReference } from '@capi/apimachinery';

export interface ClusterOwnershipPatch {
  metadata: { labels: Record<string, string>; ownerReferences: OwnerReference[]; resourceVersion?: string };
}

/** The merge patch setting the label and the Cluster ownerReference, or undefined when both are right. */
export function clusterOwnershipPatch(md: MachineDeployment, cluster: Cluster): ClusterOwnershipPatch | undefined {
  const labels = { ...(md.metadata.labels ?? {}), [CLUSTER_NAME_LABEL]: md.spec.clusterName };
  const owner: OwnerReference = {
    apiVersion: cluster.apiVersion,
    kind: 'Cluster',
    name: cluster.metadata.name!,
    uid: cluster.metadata.uid!,
  };
  const current = md.metadata.ownerReferences ?? [];
  const ownerReferences = ensureOwnerRef(current, owner);
  if (md.metadata.labels?.[CLUSTER_NAME_LABEL] === md.spec.clusterName && jsonEqual(ownerReferences, current))
    return undefined;
  return { metadata: { labels, ownerReferences, resourceVersion: md.metadata.resourceVersion } };
}
