// `describe cluster NAME`: reads the Cluster's objects (as clusterctl's tree discovery does: by the cluster-name label,
// references through their CRDs' contract versions) and prints @capi/cluster-tree's tree.
import {
  CLUSTER_API_VERSION,
  CLUSTER_NAME_LABEL,
  type Cluster,
  type Machine,
  type MachineDeployment,
  type MachineSet,
} from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import { buildClusterTree, renderClusterTree, type ClusterTree } from '@capi/cluster-tree';
import { ContractVersionResolver, getReferenced, type ContractVersionedRef } from '@capi/external';
import { CliError, requestError, type Connection } from './kube';

/** Reads what the tree shows; a missing Cluster is an error, a missing referenced object is left out (as clusterctl). */
export async function readClusterTree(conn: Connection, name: string): Promise<ClusterTree> {
  const { api, namespace } = conn;
  const cluster = await api.tryGet<Cluster>({ apiVersion: CLUSTER_API_VERSION, kind: 'Cluster', name, namespace });
  if (!cluster) throw new CliError(`cluster "${name}" not found in namespace "${namespace}"`);
  const byCluster = { namespace, labelSelector: `${CLUSTER_NAME_LABEL}=${name}` };
  const [machineDeployments, machineSets, machines] = await Promise.all([
    api.list<MachineDeployment>(CLUSTER_API_VERSION, 'MachineDeployment', byCluster),
    api.list<MachineSet>(CLUSTER_API_VERSION, 'MachineSet', byCluster),
    api.list<Machine>(CLUSTER_API_VERSION, 'Machine', byCluster),
  ]);
  const resolver = new ContractVersionResolver(conn.client);
  const referenced = async (ref: ContractVersionedRef | undefined): Promise<KubeObject | undefined> => {
    if (!ref?.name) return undefined;
    try {
      return await getReferenced(conn.client, resolver, ref, namespace);
    } catch (e) {
      throw requestError(e, 'get', `${ref.kind} "${ref.name}" in namespace "${namespace}"`, conn.server);
    }
  };
  const [controlPlane, infrastructureCluster, ...perMachine] = await Promise.all([
    referenced(cluster.spec?.controlPlaneRef),
    referenced(cluster.spec?.infrastructureRef),
    ...machines.items.flatMap((m) => [referenced(m.spec?.infrastructureRef), referenced(m.spec?.bootstrap?.configRef)]),
  ]);
  const present = (o: KubeObject | undefined): o is KubeObject => o !== undefined;
  return buildClusterTree({
    cluster,
    controlPlane,
    infrastructureCluster,
    machineDeployments: machineDeployments.items,
    machineSets: machineSets.items,
    machines: machines.items,
    machineInfrastructure: perMachine.filter((_, i) => i % 2 === 0).filter(present),
    bootstrapConfigs: perMachine.filter((_, i) => i % 2 === 1).filter(present),
  });
}

export async function describeCluster(
  conn: Connection,
  name: string,
  output: 'text' | 'json',
  now: Date,
): Promise<string> {
  const tree = await readClusterTree(conn, name);
  return output === 'json' ? JSON.stringify(tree, null, 2) : renderClusterTree(tree, now);
}
