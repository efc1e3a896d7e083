// Writes of the KCP remediation (thin I/O used by the reconciler): OwnerRemediated on Machines and the
// remediation-in-progress annotation on the KCP.
import type { PassiveClock } from '@capi/apimachinery';
import {
  CLUSTER_API_VERSION,
  KCP_REMEDIATION_IN_PROGRESS_ANNOTATION,
  OWNER_REMEDIATED_CONDITION,
  getCondition,
  setCondition,
  type KubeadmControlPlane,
  type Machine,
} from '@capi/api';
import { isInvalid, isNotFound, refOf } from '@capi/controller-runtime';
import { KCP_REMEDIATION_MANAGER_NAME } from './constants';
import type { MachineIo } from './machines';
import type { OwnerRemediatedInput } from './remediation';

/**
 * OwnerRemediated=False with `input` on the Machine (SSA on status, own field manager, forced: KCP takes the entry
 * over from MHC). No request when nothing changes.
 */
export async function writeOwnerRemediated(
  io: MachineIo,
  machine: Machine,
  input: OwnerRemediatedInput,
  clock: PassiveClock,
): Promise<void> {
  const existing = getCondition(machine, OWNER_REMEDIATED_CONDITION);
  if (
    existing &&
    existing.status === 'False' &&
    existing.reason === input.reason &&
    (existing.message ?? '') === (input.message ?? '')
  )
    return;
  const conditions = setCondition(
    existing ? [existing] : [],
    { type: OWNER_REMEDIATED_CONDITION, status: 'False', ...input, observedGeneration: machine.metadata.generation },
    clock,
  );
  await io.client.apply(
    {
      apiVersion: CLUSTER_API_VERSION,
      kind: 'Machine',
      metadata: { name: machine.metadata.name, namespace: machine.metadata.namespace, uid: machine.metadata.uid },
      status: { conditions },
    },
    { fieldManager: KCP_REMEDIATION_MANAGER_NAME, subresource: 'status', force: true },
  );
}

/**
 * Removes OwnerRemediated from a Machine that is healthy again, whoever wrote it (MHC keeps its own waiting marker
 * on a healthy Machine and leaves the cleanup to the owner, like upstream). A JSON patch whose `test` ops guard
 * the entry as read: if the list changed meanwhile the patch is refused and the next reconcile looks again.
 */
export async function removeOwnerRemediated(io: MachineIo, machine: Machine): Promise<void> {
  const i = (machine.status?.conditions ?? []).findIndex((c) => c.type === OWNER_REMEDIATED_CONDITION);
  if (i < 0) return;
  const at = `/status/conditions/${i}`;
  try {
    await io.client.patch(
      refOf(machine),
      'json',
      [
        { op: 'test', path: `${at}/type`, value: OWNER_REMEDIATED_CONDITION },
        { op: 'test', path: `${at}/status`, value: 'False' },
        { op: 'remove', path: at },
      ],
      { subresource: 'status' },
    );
  } catch (e) {
    if (!isNotFound(e) && !isInvalid(e)) throw e;
  }
}

/**
 * Sets (value) or removes (null) the remediation-in-progress annotation and updates `kcp` in memory for the status
 * computed after. The next reconcile waits until the cache shows it, so it cannot start a second remediation from a
 * KCP read before this write (upstream writes the annotation with the KCP's patch at the end of the reconcile and
 * relies on the deferral on the Machine it deleted).
 */
export async function setRemediationInProgress(
  io: MachineIo,
  kcp: KubeadmControlPlane,
  value: string | null,
): Promise<void> {
  const patched = await io.client.patch<KubeadmControlPlane>(refOf(kcp), 'merge', {
    metadata: { annotations: { [KCP_REMEDIATION_IN_PROGRESS_ANNOTATION]: value } },
  });
  const rv = patched.metadata.resourceVersion;
  if (rv) io.controller?.deferNextReconcileUntilCacheUpToDate(kcp, { apiVersion: kcp.apiVersion, kind: kcp.kind }, rv);
  kcp.metadata.annotations = patched.metadata.annotations;
  kcp.metadata.resourceVersion = rv;
}
