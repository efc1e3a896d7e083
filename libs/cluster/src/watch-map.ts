// What the Cluster controller watches besides Clusters, as upstream core/reconcilers/cluster/cluster_controller.go
// (SetupWithManager): control-plane Machines until the control plane is initialized, and MachineDeployments. Worker
// Machines and MachineSets are not watched: their changes reach the Cluster's conditions through their
// MachineDeployment's status, and a deleting Cluster requeues itself while descendants remain.
import { CLUSTER_API_VERSION, MACHINE_CONTROL_PLANE_LABEL, isTrue, type Cluster, type Machine } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import type { MapContext, Request } from '@capi/controller-runtime';

/** Upstream controlPlaneMachineToCluster: a control-plane Machine with a Node, while ControlPlaneInitialized isn't True. */
export function controlPlaneMachineToCluster(obj: KubeObject, { cache }: MapContext): Request[] {
  const machine = obj as Machine;
  if (!(MACHINE_CONTROL_PLANE_LABEL in (machine.metadata.labels ?? {}))) return [];
  if (!machine.status?.nodeRef?.name) return [];
  const namespace = machine.metadata.namespace;
  const cluster = cache
    .listStored<Cluster>(CLUSTER_API_VERSION, 'Cluster', { namespace })
    .find((c) => c.metadata.name === machine.spec.clusterName);
  if (!cluster || isTrue(cluster.status?.conditions, 'ControlPlaneInitialized')) return [];
  return [{ namespace, name: machine.spec.clusterName }];
}

/** Upstream machineDeploymentToCluster. */
export function machineDeploymentToCluster(obj: KubeObject): Request[] {
  const name = (obj.spec as { clusterName?: string } | undefined)?.clusterName;
  return name ? [{ namespace: obj.metadata.namespace, name }] : [];
}
