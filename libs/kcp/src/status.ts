// KubeadmControlPlane status and the UpToDate condition KCP writes on its Machines (pure).
import { kcpDeletingCondition, type KcpDeleting } from './deletion';
import { compareKubernetesVersions, type PassiveClock } from '@capi/apimachinery';
import {
  AVAILABLE_CONDITION,
  CLUSTER_NAME_LABEL,
  MACHINE_CONTROL_PLANE_LABEL,
  MACHINE_UP_TO_DATE_UPDATING_REASON,
  MACHINES_UP_TO_DATE_CONDITION,
  MACHINES_READY_CONDITION,
  NOT_UP_TO_DATE_REASON,
  READY_CONDITION,
  ROLLING_OUT_CONDITION,
  SCALING_DOWN_CONDITION,
  SCALING_UP_CONDITION,
  UP_TO_DATE_CONDITION,
  UP_TO_DATE_REASON,
  UPDATING_CONDITION,
  aggregate,
  getCondition,
  isTrue,
  isUpdateInProgress,
  setCondition,
  type Condition,
  type ConditionInput,
  type KubeadmControlPlane,
  type KubeadmControlPlaneStatus,
  type Machine,
} from '@capi/api';
import { availableCondition, etcdMembersMatchMachines, withHealth } from './available';
import { desiredReplicas, isUpdatingInPlace } from './decide';
import { isEtcdManaged } from './health';
import { lastRemediation, remediatingCondition } from './remediation';
import type { EtcdMember, WorkloadNode } from './workload-cluster';

export { isUpdatingInPlace };

/**
 * UpToDate on a Machine, in upstream's order (reconcileMachineUpToDateCondition): not up-to-date first, then an
 * in-place update in progress (the message mirrors the Updating condition's), then a kubelet version lagging
 * spec.version (Updating), then up-to-date.
 */
export function machineUpToDateCondition(
  machine: Machine,
  upToDate: boolean,
  conditionMessages: readonly string[],
): ConditionInput {
  if (!upToDate) {
    return {
      type: UP_TO_DATE_CONDITION,
      status: 'False',
      reason: NOT_UP_TO_DATE_REASON,
      message: conditionMessages.map((m) => `* ${m}`).join('\n'),
    };
  }
  if (isUpdateInProgress(machine)) {
    const updating = getCondition(machine, UPDATING_CONDITION);
    const message =
      updating?.status === 'True' && updating.message ? `* ${updating.message}` : '* In-place update in progress';
    return { type: UP_TO_DATE_CONDITION, status: 'False', reason: MACHINE_UP_TO_DATE_UPDATING_REASON, message };
  }
  // The spec is up-to-date but the kubelet still runs another version (e.g. an upgrade in progress on the host).
  const kubeletVersion = (machine.status?.nodeInfo as { kubeletVersion?: string } | undefined)?.kubeletVersion;
  if (kubeletVersion && kubeletVersion !== machine.spec.version) {
    return {
      type: UP_TO_DATE_CONDITION,
      status: 'False',
      reason: MACHINE_UP_TO_DATE_UPDATING_REASON,
      message: `* Node.status.nodeInfo.kubeletVersion ${kubeletVersion}, ${machine.spec.version ?? ''} required`,
    };
  }
  return { type: UP_TO_DATE_CONDITION, status: 'True', reason: UP_TO_DATE_REASON };
}

/** An updating Machine is unavailable, whatever its Available condition says. */
export const isMachineAvailable = (m: Machine): boolean => isTrue(m, AVAILABLE_CONDITION) && !isUpdateInProgress(m);

/** The selector of status.selector (scale subresource): the KCP's control-plane Machines. */
export const controlPlaneSelector = (clusterName: string): string =>
  `${CLUSTER_NAME_LABEL}=${clusterName},${MACHINE_CONTROL_PLANE_LABEL}`;

/**
 * Lowest Kubernetes version among the Machines with one, in semantic version order ("v1.31.0-rc.1" < "v1.31.0"), the
 * Machine name breaking ties (upstream util/collections/machine_collection.go LowestVersion).
 */
export function lowestVersion(machines: readonly Machine[]): string | undefined {
  const withVersion = machines.filter((m) => !!m.spec.version);
  const byName = (a: Machine, b: Machine) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1);
  return withVersion.sort((a, b) => compareKubernetesVersions(a.spec.version!, b.spec.version!) || byName(a, b))[0]
    ?.spec.version;
}

export interface KcpStatusInput {
  kcp: KubeadmControlPlane;
  clusterName: string;
  /** Machines as they will be after this reconcile's writes (with the UpToDate conditions just computed). */
  machines: readonly Machine[];
  /** Spec-wise up-to-date and not updating in place. */
  upToDateNames: ReadonlySet<string>;
  /** The workload cluster has a Ready control-plane Node (kubeadm init done). */
  controlPlaneNodeReady?: boolean;
  /** Message when the last reconcile step is waiting (preflight), shown on ScalingUp/ScalingDown/RollingOut. */
  waitingMessage?: string;
  /** ControlPlaneComponentsHealthy / EtcdClusterHealthy computed from the workload cluster (health.ts). */
  healthConditions?: readonly ConditionInput[];
  /** Per Machine: the health conditions computed this reconcile (health.ts), for the Available condition. */
  machineHealth?: ReadonlyMap<string, readonly ConditionInput[]>;
  /** Workload cluster Nodes and etcd members (undefined: not read). */
  nodes?: readonly WorkloadNode[];
  etcdMembers?: readonly EtcdMember[];
  /** CertificatesAvailable as this reconcile's certificates step set it (certificates.ts); Available needs it True. */
  certificatesCondition?: ConditionInput;
  /** While the KCP is deleting: the Deleting condition's reason and message (deletion.ts). */
  deleting?: KcpDeleting;
  clock: PassiveClock;
}

export function computeKcpStatus(input: KcpStatusInput): KubeadmControlPlaneStatus {
  const { kcp, clusterName, machines, upToDateNames, waitingMessage, clock } = input;
  const replicas = desiredReplicas(kcp);
  const current = machines.length;
  const noReplicas = { status: 'True' as const, reason: 'NoReplicas' };
  const outdated = machines.filter((m) => !upToDateNames.has(m.metadata.name ?? ''));
  const blocked = waitingMessage ? ` (waiting: ${waitingMessage})` : '';
  const inputs: ConditionInput[] = [
    aggregate(machines, UP_TO_DATE_CONDITION, {
      targetType: MACHINES_UP_TO_DATE_CONDITION,
      trueReason: 'UpToDate',
      falseReason: 'NotUpToDate',
      unknownReason: 'UpToDateUnknown',
      noObjects: noReplicas,
    }),
    aggregate(machines, READY_CONDITION, {
      targetType: MACHINES_READY_CONDITION,
      trueReason: 'Ready',
      falseReason: 'NotReady',
      unknownReason: 'ReadyUnknown',
      noObjects: noReplicas,
    }),
    current < replicas
      ? {
          type: SCALING_UP_CONDITION,
          status: 'True',
          reason: 'ScalingUp',
          message: `Scaling up from ${current} to ${replicas} replicas${blocked}`,
        }
      : { type: SCALING_UP_CONDITION, status: 'False', reason: 'NotScalingUp' },
    current > replicas
      ? {
          type: SCALING_DOWN_CONDITION,
          status: 'True',
          reason: 'ScalingDown',
          message: `Scaling down from ${current} to ${replicas} replicas${blocked}`,
        }
      : { type: SCALING_DOWN_CONDITION, status: 'False', reason: 'NotScalingDown' },
    outdated.length > 0
      ? {
          type: ROLLING_OUT_CONDITION,
          status: 'True',
          reason: 'RollingOut',
          message: `Rolling out ${outdated.length} not up-to-date replicas${blocked}`,
        }
      : { type: ROLLING_OUT_CONDITION, status: 'False', reason: 'NotRollingOut' },
    remediatingCondition(machines),
    kcpDeletingCondition(kcp, input.deleting),
    ...(input.healthConditions ?? []),
  ];
  // Once initialized, always initialized (like upstream): the first control-plane Node came up, or a Machine got its Node.
  const initialized =
    kcp.status?.initialization?.controlPlaneInitialized === true ||
    input.controlPlaneNodeReady === true ||
    machines.some((m) => !!m.status?.nodeRef);
  const now = new Date(clock.now());
  const healthy = machines.map((m) => withHealth(m, input.machineHealth?.get(m.metadata.name ?? '') ?? [], now));
  if (input.certificatesCondition) inputs.push(input.certificatesCondition);
  inputs.push(
    availableCondition({
      kcp,
      initialized,
      etcdManaged: isEtcdManaged(kcp),
      etcdMembers: input.etcdMembers,
      machines: healthy,
      now,
      etcdMembersAndMachinesAreMatching: etcdMembersMatchMachines(machines, input.nodes, input.etcdMembers, now),
      certificatesAvailable: input.certificatesCondition?.status === 'True',
    }),
  );
  let conditions: Condition[] | undefined = kcp.status?.conditions;
  for (const c of inputs)
    conditions = setCondition(conditions, { ...c, observedGeneration: kcp.metadata.generation }, clock);
  const status: KubeadmControlPlaneStatus = {
    ...(kcp.status ?? {}),
    conditions,
    selector: controlPlaneSelector(clusterName),
    replicas: current,
    readyReplicas: machines.filter((m) => isTrue(m, READY_CONDITION)).length,
    availableReplicas: machines.filter(isMachineAvailable).length,
    upToDateReplicas: machines.filter((m) => upToDateNames.has(m.metadata.name ?? '')).length,
    initialization: { controlPlaneInitialized: initialized },
  };
  const remediation = lastRemediation(kcp, machines);
  if (remediation) status.lastRemediation = remediation;
  const version = lowestVersion(machines);
  if (version) status.version = version;
  else delete status.version;
  if (kcp.metadata.generation) status.observedGeneration = kcp.metadata.generation;
  return status;
}
