// What to reconcile when a workload cluster's API server is lost (its child process died): the Nodes went with it,
// and nothing in the management cluster changed, so no event would bring the provider back to it.
import { CLUSTER_NAME_LABEL, MachineGVK, type Machine } from '@capi/api';
import type { InformerCache, Request } from '@capi/controller-runtime';
import { INMEMORY_API_VERSION, type InMemoryCluster, type InMemoryMachine } from '../api/types';
import { owningClusterName } from '../cluster/inmemory-cluster.reconciler';
import { ownerMachineName } from '../machine/decide';
import type { ClusterKey } from './workload-clusters';

export interface LostClusterRequests {
  /** Start the server again and publish its new kubeconfig Secret and endpoint. */
  inMemoryClusters: Request[];
  /** Register their Nodes again. */
  inMemoryMachines: Request[];
}

const requestOf = (o: { metadata: { namespace?: string; name?: string } }): Request => ({
  namespace: o.metadata.namespace,
  name: o.metadata.name!,
});

/** The cluster's InMemoryCluster and InMemoryMachines, read from the cache without copies. */
export function lostClusterRequests(cache: InformerCache, key: ClusterKey): LostClusterRequests {
  const inNamespace = { namespace: key.namespace };
  const clusters = cache
    .listStored<InMemoryCluster>(INMEMORY_API_VERSION, 'InMemoryCluster', inNamespace)
    .filter((c) => owningClusterName(c) === key.name);
  let machineClusters: Map<string, string> | undefined;
  // The cluster-name label, else the owner Machine's cluster (Machines read once, only if some lack the label).
  const clusterOf = (m: InMemoryMachine): string | undefined => {
    const labelled = m.metadata.labels?.[CLUSTER_NAME_LABEL];
    if (labelled) return labelled;
    const owner = ownerMachineName(m);
    if (!owner) return undefined;
    machineClusters ??= new Map(
      cache
        .listStored<Machine>(MachineGVK.apiVersion, 'Machine', inNamespace)
        .map((x) => [x.metadata.name!, x.spec.clusterName]),
    );
    return machineClusters.get(owner);
  };
  const machines = cache
    .listStored<InMemoryMachine>(INMEMORY_API_VERSION, 'InMemoryMachine', inNamespace)
    .filter((m) => clusterOf(m) === key.name);
  return { inMemoryClusters: clusters.map(requestOf), inMemoryMachines: machines.map(requestOf) };
}
