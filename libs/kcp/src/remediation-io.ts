// Writes of the KCP remediation (thin I/O used by the reconciler): OwnerRemediated on Machines and the
// remediation-in-progress annotation on the KCP.
import { CLUSTER_API_VERSION, KCP_REMEDIATION_IN_PROGRESS_ANNOTATION, OWNER_REMEDIATED_CONDITION, getCondition, setCondition, type Clock, type KubeadmControlPlane, type Machine } from '@capi/api';
import { KCP_REMEDIATION_MANAGER_NAME } from './constants';
import { refOf, waitForCache, type MachineIo } from './machines';
import type { OwnerRemediatedInput } from './remediation';

/**
 * OwnerRemediated=False with `input` on the Machine (SSA on status, own field manager, forced: KCP takes the entry
 * over from MHC); `undefined` gives the entry up, which removes it unless someone else (MHC) still asserts it.
 * No request when nothing changes.
 */
export async function writeOwnerRemediated(io: MachineIo, machine: Machine, input: OwnerRemediatedInput | undefined, clock: Clock): Promise<void> {
  const existing = getCondition(machine, OWNER_REMEDIATED_CONDITION);
  let conditions: ReturnType<typeof setCondition> = [];
  if (input) {
    if (existing && existing.status === 'False' && existing.reason === input.reason && (existing.message ?? '') === (input.message ?? '')) return;
    conditions = setCondition(existing ? [existing] : [], { type: OWNER_REMEDIATED_CONDITION, status: 'False', ...input, observedGeneration: machine.metadata.generation }, clock);
  } else if (!existing) return;
  await io.client.apply(
    { apiVersion: CLUSTER_API_VERSION, kind: 'Machine', metadata: { name: machine.metadata.name, namespace: machine.metadata.namespace, uid: machine.metadata.uid }, status: { conditions } },
    { fieldManager: KCP_REMEDIATION_MANAGER_NAME, subresource: 'status', force: true },
  );
}

/**
 * Sets (value) or removes (null) the remediation-in-progress annotation, waits until the cache shows it (so the
 * next reconcile cannot start a second remediation) and updates `kcp` in memory for the status computed after.
 */
export async function setRemediationInProgress(io: MachineIo, kcp: KubeadmControlPlane, value: string | null): Promise<void> {
  const patched = await io.client.patch<KubeadmControlPlane>(refOf(kcp), 'merge', { metadata: { annotations: { [KCP_REMEDIATION_IN_PROGRESS_ANNOTATION]: value } } });
  await waitForCache(io, patched);
  kcp.metadata.annotations = patched.metadata.annotations;
  kcp.metadata.resourceVersion = patched.metadata.resourceVersion;
}
