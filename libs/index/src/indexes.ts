// Secondary indexes of the management cluster's informer cache that the controllers list through (upstream
// api/core/v1beta2/index, controller-runtime IndexField): a reconcile reads its own children, not a scan of the kind.
// Each controller registers the indexes of the kinds it already reads (registering creates the kind's informer, which
// the manager then waits for); registering one twice is a no-op, so controllers share them.
import {
  OWNER_CONTROLLER_FIELD,
  controllerOwnerKey,
  indexByControllerOwner,
  indexByFieldPath,
  indexByLabel,
  type InformerCache,
  type ListOptions,
} from '@capi/controller-runtime';
import { CLUSTER_API_VERSION, CLUSTER_NAME_LABEL, MACHINE_DEPLOYMENT_NAME_LABEL } from '@capi/api';

/** Field of spec.clusterName (Machines, MachineSets, MachineHealthChecks). */
export const CLUSTER_NAME_FIELD = 'spec.clusterName';

/** Machines by controller owner, spec.clusterName, and the cluster-name / deployment-name labels. */
export function indexMachines(cache: InformerCache): void {
  indexByControllerOwner(cache, CLUSTER_API_VERSION, 'Machine');
  indexByFieldPath(cache, CLUSTER_API_VERSION, 'Machine', CLUSTER_NAME_FIELD);
  indexByLabel(cache, CLUSTER_API_VERSION, 'Machine', CLUSTER_NAME_LABEL);
  indexByLabel(cache, CLUSTER_API_VERSION, 'Machine', MACHINE_DEPLOYMENT_NAME_LABEL);
}

/** MachineSets by controller owner (their MachineDeployment) and spec.clusterName. */
export function indexMachineSets(cache: InformerCache): void {
  indexByControllerOwner(cache, CLUSTER_API_VERSION, 'MachineSet');
  indexByFieldPath(cache, CLUSTER_API_VERSION, 'MachineSet', CLUSTER_NAME_FIELD);
}

/** MachineHealthChecks by spec.clusterName. */
export function indexMachineHealthChecks(cache: InformerCache): void {
  indexByFieldPath(cache, CLUSTER_API_VERSION, 'MachineHealthCheck', CLUSTER_NAME_FIELD);
}

/** List options selecting what `kind`/`name` controls (any API group: callers check group/uid on the hits). */
export function controlledBy(
  namespace: string | undefined,
  kind: string,
  name: string,
): Pick<ListOptions, 'namespace' | 'matchingFields'> {
  return { namespace, matchingFields: { [OWNER_CONTROLLER_FIELD]: controllerOwnerKey(kind, name) } };
}
