// MachineDeployment → MachineSet and orphan Machine → MachineSet requests for the MachineSet controller's watches.
// Map functions are synchronous: they read the MachineSets the manager's cache holds (MapContext), as upstream's
// MachineToMachineSets (internal/controllers/machineset/machineset_controller.go) lists them through the manager's client.
import { labelSelectorAsSelector, type KubeObject } from '@capi/apimachinery';
import { CLUSTER_NAME_FIELD, controlledBy } from '@capi/index';
import { CLUSTER_API_VERSION, type MachineSet } from '@capi/api';
import type { MapContext, Request } from '@capi/controller-runtime';

/** The MachineSets whose controller owner is the given MachineDeployment (their Machines' UpToDate depends on it). */
export function machineSetRequestsForMachineDeployment(md: KubeObject, { cache }: MapContext): Request[] {
  return cache
    .listStored(
      CLUSTER_API_VERSION,
      'MachineSet',
      controlledBy(md.metadata.namespace, 'MachineDeployment', md.metadata.name ?? ''),
    )
    .map((ms) => ({ namespace: ms.metadata.namespace, name: ms.metadata.name ?? '' }));
}

/** MachineSets whose selector matches a Machine without controller owner (so orphans get adopted promptly). */
export function machineSetRequestsForOrphanMachine(machine: KubeObject, { cache }: MapContext): Request[] {
  if (machine.metadata.ownerReferences?.some((r) => r.controller === true)) return [];
  return cache
    .listStored(CLUSTER_API_VERSION, 'MachineSet', { namespace: machine.metadata.namespace })
    .filter((ms) => {
      try {
        const selector = labelSelectorAsSelector((ms as MachineSet).spec?.selector);
        return !selector.empty && selector.matches(machine.metadata.labels);
      } catch {
        return false; // an invalid selector is reported by that MachineSet's own reconcile
      }
    })
    .map((ms) => ({ namespace: ms.metadata.namespace, name: ms.metadata.name ?? '' }));
}

/** The MachineSets of a Cluster (spec.clusterName): unpausing it must resume their remediation. */
export function machineSetRequestsForCluster(cluster: KubeObject, { cache }: MapContext): Request[] {
  return cache
    .listStored(CLUSTER_API_VERSION, 'MachineSet', {
      namespace: cluster.metadata.namespace,
      matchingFields: { [CLUSTER_NAME_FIELD]: cluster.metadata.name ?? '' },
    })
    .map((ms) => ({ namespace: ms.metadata.namespace, name: ms.metadata.name ?? '' }));
}
