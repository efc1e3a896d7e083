// KubeadmControlPlane status (upstream controlplane/kubeadm/reconcilers/kubeadmcontrolplane/status.go updateStatus,
// v1beta2 only): pure, from the Machines as this reconcile leaves them (their UpToDate and health conditions set).
import { ROLLOUT_BLOCKED_CONDITION } from '@capi/inplace';
import {
  getCondition,
  setCondition,
  versionsFromMachines,
  type Cluster,
  type Condition,
  type ConditionInput,
  type KubeadmControlPlane,
  type KubeadmControlPlaneStatus,
  type Machine,
} from '@capi/api';
import type { PassiveClock } from '@capi/apimachinery';
import { availableCondition, etcdMembersMatchMachines } from '../available';
import { CERTIFICATES_AVAILABLE_CONDITION } from '../certificates';
import type { PreflightCheckResults } from '../decide';
import { kcpDeletingCondition, type KcpDeleting } from '../deletion';
import { isEtcdManaged } from '../health';
import { lastRemediation } from '../remediation';
import type { EtcdMember, WorkloadNode } from '../workload-cluster';
import { controlPlaneSelector } from './machine-uptodate';
import {
  machinesReadyCondition,
  machinesUpToDateCondition,
  remediatingCondition,
  rollingOutCondition,
} from './machines';
import { controlPlaneInitialized, initializedCondition, replicaCounters } from './replicas';
import { scalingDownCondition, scalingUpCondition } from './scaling';

export { isUpdatingInPlace } from '../decide';
export { controlPlaneSelector, machineUpToDateCondition } from './machine-uptodate';
export { aggregateUnhealthyMachines, machinesReadyCondition, machinesUpToDateCondition } from './machines';
export { remediatingCondition, rollingOutCondition } from './machines';
export { controlPlaneInitialized, initializedCondition, replicaCounters } from './replicas';
export { aggregateStaleMachines, preflightMessages, scalingDownCondition, scalingUpCondition } from './scaling';

export interface KcpStatusInput {
  kcp: KubeadmControlPlane;
  clusterName: string;
  /** The owning Cluster (its topology version names a pending upgrade in the scaling messages). */
  cluster?: Cluster;
  /** Machines as this reconcile leaves them, with the UpToDate and health conditions it computed set on them. */
  machines: readonly Machine[];
  /** The workload cluster has a Ready control-plane Node (kubeadm init done). */
  controlPlaneNodeReady?: boolean;
  /** What blocked this reconcile's scale operation, if its preflight check ran (upstream PreflightCheckResults). */
  preflight?: PreflightCheckResults;
  /** spec.machineTemplate.spec.infrastructureRef was not found (upstream InfraMachineTemplateIsNotFound). */
  infraMachineTemplateNotFound?: boolean;
  /** Further reasons a scale up is blocked (an invalid spec.machineNaming.template), shown on ScalingUp. */
  scalingUpBlockers?: readonly string[];
  /** ControlPlaneComponentsHealthy / EtcdClusterHealthy computed from the workload cluster (health.ts). */
  healthConditions?: readonly ConditionInput[];
  /** Workload cluster Nodes and etcd members (undefined: not read). */
  nodes?: readonly WorkloadNode[];
  etcdMembers?: readonly EtcdMember[];
  /** CertificatesAvailable as this reconcile's certificates step set it; else the KCP's current one counts. */
  certificatesCondition?: ConditionInput;
  /** While the KCP is deleting: the Deleting condition's reason and message (deletion.ts). */
  deleting?: KcpDeleting;
  /**
   * The InPlaceOnly policy's RolloutBlocked condition (this project's extension): set; null: the policy is not set,
   * the condition goes; undefined: not looked at this reconcile, it stays as it is.
   */
  rolloutBlocked?: ConditionInput | null;
  clock: PassiveClock;
}

export function computeKcpStatus(input: KcpStatusInput): KubeadmControlPlaneStatus {
  const { kcp, clusterName, machines, clock } = input;
  const nowMs = clock.now();
  const initialized = controlPlaneInitialized(kcp, machines, input.controlPlaneNodeReady === true);
  let conditions: Condition[] | undefined = kcp.status?.conditions;
  const set = (c: ConditionInput) =>
    (conditions = setCondition(conditions, { ...c, observedGeneration: kcp.metadata.generation }, clock));

  for (const c of input.healthConditions ?? []) set(c);
  if (input.certificatesCondition) set(input.certificatesCondition);
  // Upstream updateStatus order.
  set(initializedCondition(initialized));
  set(rollingOutCondition(machines));
  const scaling = { kcp, cluster: input.cluster, machines, preflight: input.preflight, nowMs };
  set(
    scalingUpCondition({
      ...scaling,
      infraMachineTemplateNotFound: input.infraMachineTemplateNotFound,
      extraBlockers: input.scalingUpBlockers,
    }),
  );
  set(scalingDownCondition(scaling));
  set(machinesReadyCondition(machines));
  set(machinesUpToDateCondition(machines, nowMs));
  set(remediatingCondition(machines));
  set(kcpDeletingCondition(kcp, input.deleting));
  if (input.rolloutBlocked) set(input.rolloutBlocked);
  else if (input.rolloutBlocked === null) conditions = conditions?.filter((c) => c.type !== ROLLOUT_BLOCKED_CONDITION);
  // Available reads Initialized's lastTransitionTime as just set (the etcd members' two-minute grace).
  const current = { ...kcp, status: { ...(kcp.status ?? {}), conditions } } as KubeadmControlPlane;
  const now = new Date(nowMs);
  set(
    availableCondition({
      kcp: current,
      initialized,
      etcdManaged: isEtcdManaged(kcp),
      etcdMembers: input.etcdMembers,
      machines,
      now,
      etcdMembersAndMachinesAreMatching: etcdMembersMatchMachines(machines, input.nodes, input.etcdMembers, now),
      certificatesAvailable: getCondition(current, CERTIFICATES_AVAILABLE_CONDITION)?.status === 'True',
    }),
  );

  const status: KubeadmControlPlaneStatus = {
    ...(kcp.status ?? {}),
    conditions,
    selector: controlPlaneSelector(clusterName),
    ...replicaCounters(machines),
    initialization: { controlPlaneInitialized: initialized },
  };
  const remediation = lastRemediation(kcp, machines);
  if (remediation) status.lastRemediation = remediation;
  // Upstream keeps status.version as the lowest of status.versions (kubelet version, else spec.version); with no
  // Machine reporting one it stays as it was.
  const version = versionsFromMachines(machines)?.[0]?.version;
  if (version) status.version = version;
  if (kcp.metadata.generation) status.observedGeneration = kcp.metadata.generation;
  return status;
}
