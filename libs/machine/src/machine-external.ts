// Pure rules for the Machine's bootstrap config and infra machine (upstream machine_controller_phases.go).
import { CLUSTER_GROUP, CLUSTER_NAME_LABEL, MachineGVK } from '@capi/api';
import { groupOf, type KubeObject, type OwnerReference } from '@capi/apimachinery';
import type { ObjectRef, Request } from '@capi/controller-runtime';
import type { MachineObject } from './types';

export interface ExternalRead {
  object?: KubeObject;
  notFound: boolean;
  /** The Machine does not reference such an object (no bootstrap configRef). */
  absentRef?: boolean;
  ref?: ObjectRef;
  error?: Error;
}

interface BootstrapStatus {
  initialization?: { dataSecretCreated?: boolean };
  dataSecretName?: string;
}

/** Bootstrap: data secret created + its name; sticky once the Machine has spec.bootstrap.dataSecretName. */
export function observeBootstrap(
  machine: MachineObject,
  read: ExternalRead,
): { dataSecretCreated: boolean; dataSecretName?: string } {
  const current = machine.spec.bootstrap?.dataSecretName;
  if (current) return { dataSecretCreated: true, dataSecretName: current };
  if (!read.object) return { dataSecretCreated: false };
  const st = (read.object.status ?? {}) as BootstrapStatus;
  if (st.initialization?.dataSecretCreated && st.dataSecretName)
    return { dataSecretCreated: true, dataSecretName: st.dataSecretName };
  return { dataSecretCreated: false };
}

interface InfraStatus {
  initialization?: { provisioned?: boolean };
  addresses?: { type: string; address: string }[];
}

/** Infrastructure: provisioned (sticky) + spec.providerID + status.addresses of the infra machine. */
export function observeInfrastructure(
  machine: MachineObject,
  read: ExternalRead,
): { provisioned: boolean; providerID?: string; addresses?: NonNullable<MachineObject['status']>['addresses'] } {
  const already = machine.status?.initialization?.infrastructureProvisioned === true;
  if (!read.object) return { provisioned: already, providerID: machine.spec.providerID };
  const st = (read.object.status ?? {}) as InfraStatus;
  const providerID = ((read.object.spec ?? {}) as { providerID?: string }).providerID || machine.spec.providerID;
  // Provisioned needs a providerID (contract): without it the Machine could never find its Node.
  const provisioned = already || (st.initialization?.provisioned === true && !!providerID);
  return {
    provisioned,
    providerID: provisioned ? providerID : machine.spec.providerID,
    addresses: st.addresses as never,
  };
}

/**
 * Merge patch adding the Machine ownerReference (controller when no other controller) and cluster-name label; undefined
 * if in place. Unguarded, as upstream's ensureExternalOwnershipAndWatch (client.MergeFrom without the optimistic lock).
 */
export function desiredExternalMetadataPatch(
  machine: MachineObject,
  obj: KubeObject,
): Record<string, unknown> | undefined {
  const refs = obj.metadata.ownerReferences ?? [];
  const hasRef = refs.some((r) => r.uid === machine.metadata.uid);
  const labelOk = obj.metadata.labels?.[CLUSTER_NAME_LABEL] === machine.spec.clusterName;
  if (hasRef && labelOk) return undefined;
  const metadata: Record<string, unknown> = {};
  if (!hasRef) {
    const ref: OwnerReference = {
      apiVersion: MachineGVK.apiVersion,
      kind: 'Machine',
      name: machine.metadata.name!,
      uid: machine.metadata.uid!,
    };
    if (!refs.some((r) => r.controller)) {
      ref.controller = true;
      ref.blockOwnerDeletion = true;
    }
    metadata.ownerReferences = [...refs, ref];
  }
  if (!labelOk) metadata.labels = { [CLUSTER_NAME_LABEL]: machine.spec.clusterName };
  return { metadata };
}

/**
 * Machines an external object belongs to: every Machine ownerReference (controller or not). The Machine controller's
 * mapping for its ExternalObjectTracker watches (upstream machine_controller_phases.go: handler.EnqueueRequestForOwner with the Machine type).
 */
export function machineRequestsFor(obj: KubeObject): Request[] {
  const ns = obj.metadata.namespace;
  return (obj.metadata.ownerReferences ?? [])
    .filter((r) => r.kind === 'Machine' && groupOf(r.apiVersion) === CLUSTER_GROUP)
    .map((r) => ({ namespace: ns, name: r.name }));
}
