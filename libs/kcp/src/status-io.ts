// The status write of a KCP reconcile: each Machine's UpToDate and health conditions, then the KCP's status from the
// Machines as listed after this reconcile's writes (created and deleted Machines count).
import { setCondition, type ConditionInput, type KubeadmControlPlane } from '@capi/api';
import { canonicalJson, type PassiveClock } from '@capi/apimachinery';
import { refOf } from '@capi/controller-runtime';
import type { ControlPlaneObservation } from './control-plane-view';
import { listControlPlaneMachines, writeMachineConditions, type MachineIo } from './machines';
import { kcpDeletingCondition, type KcpDeleting } from './deletion';
import { computeKcpStatus, isUpdatingInPlace, machineUpToDateCondition } from './status';
import type { NotUpToDateResult } from './uptodate';

export interface KcpStatusWrite {
  kcp: KubeadmControlPlane;
  clusterName: string;
  /** Per Machine name: whether its spec is up to date, and why not. */
  results: Map<string, { upToDate: boolean; result: NotUpToDateResult }>;
  observed: ControlPlaneObservation;
  certificatesCondition: ConditionInput;
  /** Why the reconcile waits (preflight), shown on ScalingUp/ScalingDown/RollingOut. */
  waiting?: string;
}

export async function writeKcpStatus(io: MachineIo, clock: PassiveClock, input: KcpStatusWrite): Promise<void> {
  const { kcp, clusterName, results, observed } = input;
  const machines = await listControlPlaneMachines(io, kcp, clusterName);
  const upToDateNames = new Set<string>();
  for (const m of machines) {
    const r = results.get(m.metadata.name!);
    // Machines created in this reconcile are up-to-date by construction (and get their health next time).
    const specUpToDate = r ? r.upToDate : true;
    const upToDate = machineUpToDateCondition(m, specUpToDate, r?.result.conditionMessages ?? []);
    // Counted from the condition, as upstream setReplicas (a lagging kubelet is not up-to-date).
    if (upToDate.status === 'True' && !isUpdatingInPlace(m)) upToDateNames.add(m.metadata.name!);
    if (m.metadata.deletionTimestamp) continue;
    const conditions = [upToDate, ...(observed.machineHealth.get(m.metadata.name!) ?? [])];
    await writeMachineConditions(io, m, conditions, clock);
  }
  const status = computeKcpStatus({
    kcp,
    clusterName,
    machines,
    upToDateNames,
    controlPlaneNodeReady: observed.controlPlaneNodeReady,
    healthConditions: observed.kcpHealth,
    waitingMessage: input.waiting,
    clock,
    machineHealth: observed.machineHealth,
    nodes: observed.nodes,
    etcdMembers: observed.etcdMembers,
    certificatesCondition: input.certificatesCondition,
  });
  if (canonicalJson(status) === canonicalJson(kcp.status ?? {})) return;
  await io.client.patch(refOf(kcp), 'merge', { status }, { subresource: 'status' });
}

/**
 * A deleting KCP's status: its Deleting condition (upstream's status update runs on delete too; here only the
 * condition that deletion changes). No request when nothing changed.
 */
export async function writeKcpDeletingStatus(
  io: MachineIo,
  clock: PassiveClock,
  kcp: KubeadmControlPlane,
  deleting: KcpDeleting,
): Promise<void> {
  const condition = { ...kcpDeletingCondition(kcp, deleting), observedGeneration: kcp.metadata.generation };
  const conditions = setCondition(kcp.status?.conditions, condition, clock);
  if (canonicalJson(conditions) === canonicalJson(kcp.status?.conditions ?? [])) return;
  await io.client.patch(refOf(kcp), 'merge', { status: { conditions } }, { subresource: 'status' });
}
