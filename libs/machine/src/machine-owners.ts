// The MachineSet and MachineDeployment that own a worker Machine (read for its UpToDate condition), and the watches
// that re-reconcile Machines when their owners change (e.g. a new MD template makes them NotUpToDate).
import { groupOf, jsonEqual, type KubeObject } from '@capi/apimachinery';
import { controlledBy } from '@capi/index';
import {
  CLUSTER_GROUP,
  MACHINE_DEPLOYMENT_NAME_LABEL,
  MachineGVK,
  MachineDeploymentGVK,
  MachineSetGVK,
  type MachineDeployment,
  type MachineSet,
} from '@capi/api';
import { labelIndexField, type InformerCache, type ListOptions, type Request } from '@capi/controller-runtime';
import type { MachineObject } from './types';
import type { UpToDateOwners } from './uptodate';

type Owned = {
  metadata: { ownerReferences?: { apiVersion: string; kind: string; name: string; controller?: boolean }[] };
};

/** Name of the controller owner of `kind` in the cluster.x-k8s.io group. */
export function controllerOwnerName(obj: Owned, kind: string): string | undefined {
  return obj.metadata.ownerReferences?.find(
    (r) => r.controller && r.kind === kind && groupOf(r.apiVersion) === CLUSTER_GROUP,
  )?.name;
}

/**
 * Both owners, or undefined when the Machine is not owned by a MachineDeployment through a MachineSet. Read only
 * (the cache's frozen objects): the UpToDate condition only compares them, and every Machine reconcile reads both.
 */
export async function readUpToDateOwners(
  cache: InformerCache,
  machine: MachineObject,
): Promise<UpToDateOwners | undefined> {
  const msName = controllerOwnerName(machine, 'MachineSet');
  if (!msName) return undefined;
  const namespace = machine.metadata.namespace;
  const readOnly = { readOnly: true };
  const machineSet = await cache.tryGet<MachineSet>(
    { apiVersion: MachineSetGVK.apiVersion, kind: 'MachineSet', namespace, name: msName },
    readOnly,
  );
  const mdName = machineSet && controllerOwnerName(machineSet, 'MachineDeployment');
  if (!mdName) return undefined;
  const machineDeployment = await cache.tryGet<MachineDeployment>(
    { apiVersion: MachineDeploymentGVK.apiVersion, kind: 'MachineDeployment', namespace, name: mdName },
    readOnly,
  );
  return machineDeployment ? { machineSet, machineDeployment } : undefined;
}

type OwnerLike = KubeObject & { spec?: { template?: unknown; rollout?: { after?: unknown } } };
const sameJson = jsonEqual;

/**
 * Whether an owner changed what its Machines read (readUpToDateOwners, upToDateCondition): spec.template,
 * spec.rollout.after (MachineDeployment), the owner references (which MachineDeployment owns the MachineSet). Not a
 * bare generation bump: the MachineDeployment changes its MachineSets' spec.replicas several times per rollout batch,
 * and each change re-enqueued every Machine of both MachineSets (O(Machines) reconciles per batch, O(Machines²) per
 * rollout), for an UpToDate computed the same.
 */
export function ownerInputsChanged(o: KubeObject, n: KubeObject): boolean {
  const [a, b] = [o as OwnerLike, n as OwnerLike];
  return (
    !sameJson(a.metadata.ownerReferences, b.metadata.ownerReferences) ||
    !sameJson(a.spec?.template, b.spec?.template) ||
    !sameJson(a.spec?.rollout?.after, b.spec?.rollout?.after)
  );
}

/**
 * Enqueues the Machines of a MachineSet (controller owner) and of a MachineDeployment (deployment-name label) when
 * the owner is added, deleted or changes what the Machines read (ownerInputsChanged); status and replica updates
 * (every reconcile of a large MachineSet writes one) would re-enqueue all its Machines each time. Read from the Machine indexes (indexMachines).
 */
export function watchMachineOwners(cache: InformerCache, enqueue: (req: Request) => void): void {
  const forward = (opts: Pick<ListOptions, 'namespace' | 'matchingFields'>) => {
    for (const m of cache.listStored(MachineGVK.apiVersion, 'Machine', opts))
      enqueue({ namespace: m.metadata.namespace, name: m.metadata.name! });
  };
  const onMachineSet = (ms: KubeObject) =>
    forward(controlledBy(ms.metadata.namespace, 'MachineSet', ms.metadata.name ?? ''));
  const onMachineDeployment = (md: KubeObject) =>
    forward({
      namespace: md.metadata.namespace,
      matchingFields: { [labelIndexField(MACHINE_DEPLOYMENT_NAME_LABEL)]: md.metadata.name ?? '' },
    });
  cache.informerFor(MachineSetGVK.apiVersion, 'MachineSet').addEventHandler({
    onAdd: onMachineSet,
    onUpdate: (o, n) => ownerInputsChanged(o, n) && onMachineSet(n),
    onDelete: onMachineSet,
  });
  cache.informerFor(MachineDeploymentGVK.apiVersion, 'MachineDeployment').addEventHandler({
    onAdd: onMachineDeployment,
    onUpdate: (o, n) => ownerInputsChanged(o, n) && onMachineDeployment(n),
    onDelete: onMachineDeployment,
  });
}
