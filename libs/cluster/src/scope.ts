// What one reconcile of a Cluster knows, as upstream's scope in core/reconcilers/cluster/cluster_controller.go: the
// reconcilers fill it in, the status functions (./status) read it.
import type { Cluster, Machine, MachineDeployment, MachineSet } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';

/** The objects that belong to a Cluster (upstream clusterDescendants; this project has no MachinePools). */
export interface ClusterDescendants {
  machineDeployments: MachineDeployment[];
  machineSets: MachineSet[];
  controlPlaneMachines: Machine[];
  workerMachines: Machine[];
  /** Machines with OwnerRemediated=False (MHC asked their owner to remediate them). */
  machinesToBeRemediated: Machine[];
  /** Machines with HealthCheckSucceeded=False. */
  unhealthyMachines: Machine[];
}

export interface ClusterScope {
  cluster: Cluster;
  /** The object spec.infrastructureRef names; undefined before it is read or when not found. */
  infraCluster?: KubeObject;
  infraClusterIsNotFound: boolean;
  /** The object spec.controlPlaneRef names; undefined before it is read or when not found. */
  controlPlane?: KubeObject;
  controlPlaneIsNotFound: boolean;
  descendants: ClusterDescendants;
  getDescendantsSucceeded: boolean;
  /** Reason and message for the Deleting condition, set by the deletion path. */
  deletingReason?: string;
  deletingMessage?: string;
}

export const emptyDescendants = (): ClusterDescendants => ({
  machineDeployments: [],
  machineSets: [],
  controlPlaneMachines: [],
  workerMachines: [],
  machinesToBeRemediated: [],
  unhealthyMachines: [],
});
