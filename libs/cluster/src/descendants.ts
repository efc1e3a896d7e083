// The objects that belong to a Cluster and which of them its deletion deletes, as upstream's clusterDescendants in
// core/reconcilers/cluster/cluster_controller.go (getDescendants, filterOwnedDescendants, objectsPendingDelete*).
// This project has no MachinePools.
import {
  CLUSTER_GROUP,
  CLUSTER_NAME_LABEL,
  isMachineToBeRemediated,
  isMachineUnhealthy,
  MACHINE_CONTROL_PLANE_LABEL,
  type Cluster,
  type Machine,
  type MachineDeployment,
  type MachineSet,
} from '@capi/api';
import { groupOf, listToString, type KubeObject } from '@capi/apimachinery';
import type { ClusterDescendants } from './scope';

const byName = <T extends KubeObject>(items: readonly T[]): T[] =>
  [...items].sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : a.metadata.name! > b.metadata.name! ? 1 : 0));

/** upstream collections.ControlPlaneMachines: the cluster-name label of this Cluster and the control-plane label. */
export const isControlPlaneMachine = (m: Machine, clusterName: string): boolean =>
  m.metadata.labels?.[CLUSTER_NAME_LABEL] === clusterName && MACHINE_CONTROL_PLANE_LABEL in (m.metadata.labels ?? {});

/** Sorts what getDescendants listed (by the cluster-name label) into upstream's clusterDescendants, in one pass. */
export function splitDescendants(
  cluster: Cluster,
  lists: { machineDeployments: MachineDeployment[]; machineSets: MachineSet[]; machines: Machine[] },
): ClusterDescendants {
  const name = cluster.metadata.name!;
  const d: ClusterDescendants = {
    machineDeployments: lists.machineDeployments,
    machineSets: lists.machineSets,
    controlPlaneMachines: [],
    workerMachines: [],
    machinesToBeRemediated: [],
    unhealthyMachines: [],
  };
  for (const m of lists.machines) {
    (isControlPlaneMachine(m, name) ? d.controlPlaneMachines : d.workerMachines).push(m);
    // To be remediated implies unhealthy: most Machines are healthy, so one condition lookup decides both.
    if (!isMachineUnhealthy(m)) continue;
    d.unhealthyMachines.push(m);
    if (isMachineToBeRemediated(m)) d.machinesToBeRemediated.push(m);
  }
  return d;
}

/** upstream util.IsOwnedByObject(obj, cluster, Cluster GroupKind): an ownerReference by group, kind and name. */
export const isOwnedByCluster = (o: { metadata: KubeObject['metadata'] }, cluster: Cluster): boolean =>
  (o.metadata.ownerReferences ?? []).some(
    (r) => r.kind === 'Cluster' && r.name === cluster.metadata.name && groupOf(r.apiVersion) === CLUSTER_GROUP,
  );

const hasControlPlaneRef = (cluster: Cluster) => !!cluster.spec?.controlPlaneRef;

/**
 * The descendants the Cluster's deletion deletes itself: those with a Cluster ownerReference (stand-alone
 * MachineSets and Machines; those of a MachineDeployment/MachineSet are left to their owner), in upstream's order:
 * MachineDeployments, MachineSets, worker Machines, then control plane Machines, the latter only when no control
 * plane object manages them (so the control plane goes only after every worker is gone).
 */
export function filterOwnedDescendants(d: ClusterDescendants, cluster: Cluster): KubeObject[] {
  const lists: KubeObject[][] = [d.machineDeployments, d.machineSets, byName(d.workerMachines)];
  if (!hasControlPlaneRef(cluster)) lists.push(byName(d.controlPlaneMachines));
  return lists.flat().filter((o) => isOwnedByCluster(o, cluster));
}

/** How many descendants are left (the infrastructure cluster, control plane and its Machines not counted). */
export function objectsPendingDeleteCount(d: ClusterDescendants, cluster: Cluster): number {
  const n = d.machineDeployments.length + d.machineSets.length + d.workerMachines.length;
  return hasControlPlaneRef(cluster) ? n : n + d.controlPlaneMachines.length;
}

/** The descendants left, per kind, names sorted, for the Deleting condition's message. */
export function objectsPendingDeleteNames(d: ClusterDescendants, cluster: Cluster): string[] {
  const out: string[] = [];
  const add = (label: string, objs: readonly KubeObject[]) => {
    if (objs.length)
      out.push(
        `${label}: ${listToString(
          byName(objs).map((o) => o.metadata.name!),
          5,
        )}`,
      );
  };
  if (!hasControlPlaneRef(cluster)) add('Control plane Machines', d.controlPlaneMachines);
  add('MachineDeployments', d.machineDeployments);
  add('MachineSets', d.machineSets);
  add('Worker Machines', d.workerMachines);
  return out;
}
