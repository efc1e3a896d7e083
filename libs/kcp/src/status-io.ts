// The status write of a KCP reconcile: each Machine's UpToDate and health conditions, then the KCP's status from the
// Machines as listed after this reconcile's writes (created and deleted Machines count).
import { setCondition, type Cluster, type ConditionInput, type KubeadmControlPlane, type Machine } from '@capi/api';
import { canonicalJson, type PassiveClock } from '@capi/apimachinery';
import { refOf } from '@capi/controller-runtime';
import { withHealth } from './available';
import type { ControlPlaneObservation } from './control-plane-view';
import type { PreflightCheckResults } from './decide';
import { listControlPlaneMachines, writeMachineConditions, type MachineIo } from './machines';
import { kcpDeletingCondition, type KcpDeleting } from './deletion';
import { computeKcpStatus, machineUpToDateCondition, type KcpStatusInput } from './status';
import type { NotUpToDateResult } from './uptodate';

export interface KcpStatusWrite {
  kcp: KubeadmControlPlane;
  clusterName: string;
  cluster?: Cluster;
  /** Per Machine name: whether its spec is up to date, and why not. */
  results: Map<string, { upToDate: boolean; result: NotUpToDateResult }>;
  observed: ControlPlaneObservation;
  certificatesCondition: ConditionInput;
  /** What blocked this reconcile's scale operation (its preflight check), shown on ScalingUp/ScalingDown. */
  preflight?: PreflightCheckResults;
  /** Further reasons a scale up is blocked (an invalid machine naming template), shown on ScalingUp. */
  scalingUpBlockers?: string[];
  /** See KcpStatusInput.rolloutBlocked. */
  rolloutBlocked?: ConditionInput | null;
}

export async function writeKcpStatus(io: MachineIo, clock: PassiveClock, input: KcpStatusWrite): Promise<void> {
  const { kcp, clusterName, results, observed } = input;
  const listed = await listControlPlaneMachines(io, kcp, clusterName);
  const now = new Date(clock.now());
  const machines: Machine[] = [];
  for (const m of listed) {
    const r = results.get(m.metadata.name!);
    // Machines created in this reconcile are up-to-date by construction (and get their health next time).
    const specUpToDate = r ? r.upToDate : true;
    const upToDate = machineUpToDateCondition(m, specUpToDate, r?.result.conditionMessages ?? []);
    const conditions = [upToDate, ...(observed.machineHealth.get(m.metadata.name!) ?? [])];
    // The status reads the Machines with this reconcile's conditions, as upstream's in-memory ControlPlane.Machines.
    machines.push(withHealth(m, conditions, now));
    if (m.metadata.deletionTimestamp) continue;
    await writeMachineConditions(io, m, conditions, clock);
  }
  await patchKcpStatus(io, kcp, {
    kcp,
    clusterName,
    cluster: input.cluster,
    machines,
    controlPlaneNodeReady: observed.controlPlaneNodeReady,
    healthConditions: observed.kcpHealth,
    preflight: input.preflight,
    scalingUpBlockers: input.scalingUpBlockers,
    rolloutBlocked: input.rolloutBlocked,
    clock,
    nodes: observed.nodes,
    etcdMembers: observed.etcdMembers,
    certificatesCondition: input.certificatesCondition,
  });
}

/**
 * The status when spec.machineTemplate.spec.infrastructureRef does not exist: upstream's reconcile stops before it
 * looks at the workload cluster, and its deferred updateStatus reports the missing template on ScalingUp from the
 * Machines' current conditions (no etcd members read).
 */
export async function writeKcpStatusInfraTemplateNotFound(
  io: MachineIo,
  clock: PassiveClock,
  input: { kcp: KubeadmControlPlane; clusterName: string; cluster?: Cluster; certificatesCondition: ConditionInput },
): Promise<void> {
  const machines = await listControlPlaneMachines(io, input.kcp, input.clusterName);
  await patchKcpStatus(io, input.kcp, { ...input, machines, infraMachineTemplateNotFound: true, clock });
}

async function patchKcpStatus(io: MachineIo, kcp: KubeadmControlPlane, input: KcpStatusInput): Promise<void> {
  const status = computeKcpStatus(input);
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
