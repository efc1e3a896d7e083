// KCP ScalingUp / ScalingDown conditions (upstream controlplane/kubeadm/reconcilers/kubeadmcontrolplane/status.go
// setScalingUpCondition, setScalingDownCondition, getPreflightMessages, calculateMissingReferencesMessage,
// aggregateStaleMachines). Pure: "now" comes in for the stale-deletion checks.
import { listToString } from '@capi/apimachinery';
import {
  DELETING_CONDITION,
  SCALING_DOWN_CONDITION,
  SCALING_UP_CONDITION,
  drainDelayReasons,
  getCondition,
  isStaleDeletion,
  type Cluster,
  type ConditionInput,
  type KubeadmControlPlane,
  type Machine,
} from '@capi/api';
import type { PreflightCheckResults } from '../decide';

/** Upstream clusterv1.ClusterTopologyUpgradeStepAnnotation. */
export const CLUSTER_TOPOLOGY_UPGRADE_STEP_ANNOTATION = 'topology.cluster.x-k8s.io/upgrade-step';

/** Upstream getPreflightMessages: why the last preflight check blocked a scale operation, one "* " line each. */
export function preflightMessages(cluster: Cluster | undefined, checks: PreflightCheckResults | undefined): string[] {
  const messages: string[] = [];
  if (!checks) return messages;
  if (checks.topologyVersionMismatch) {
    let v = (cluster?.spec?.topology as { version?: string } | undefined)?.version ?? '';
    const step = cluster?.metadata.annotations?.[CLUSTER_TOPOLOGY_UPGRADE_STEP_ANNOTATION];
    if (step) v = step;
    messages.push(`* waiting for a version upgrade to ${v} to be propagated`);
  }
  if (checks.hasDeletingMachine) messages.push('* waiting for a control plane Machine to complete deletion');
  if (checks.certificateMissing) messages.push('* cluster certificates are missing or unknown');
  if (checks.controlPlaneComponentsNotHealthy)
    messages.push('* waiting for control plane components to become healthy');
  if (checks.etcdClusterNotHealthy) messages.push('* waiting for etcd cluster to become healthy');
  return messages;
}

/** Upstream calculateMissingReferencesMessage. */
export function missingReferencesMessage(kcp: KubeadmControlPlane, infraMachineTemplateNotFound: boolean): string {
  return infraMachineTemplateNotFound ? `${kcp.spec.machineTemplate.spec.infrastructureRef.kind} does not exist` : '';
}

/**
 * Upstream aggregateStaleMachines: Machines deleting for more than 15 minutes, and what likely delays their drain
 * (read from the Deleting condition once the drain runs for more than 5 minutes). Empty when there is none.
 */
export function aggregateStaleMachines(machines: readonly Machine[], nowMs: number): string {
  const names: string[] = [];
  const delays = new Set<string>();
  for (const m of machines) {
    if (!isStaleDeletion(m.metadata.deletionTimestamp, nowMs)) continue;
    names.push(m.metadata.name ?? '');
    const drainStart = (m.status?.deletion as { nodeDrainStartTime?: string } | undefined)?.nodeDrainStartTime;
    for (const r of drainDelayReasons(getCondition(m, DELETING_CONDITION), drainStart, nowMs)) delays.add(r);
  }
  if (names.length === 0) return '';
  names.sort();
  const many = names.length > 1;
  let message = `Machine${many ? 's' : ''} ${listToString(names, 3)} ${many ? 'are' : 'is'} in deletion since more than 15m`;
  // Several Machines may add reasons in different orders: upstream lists them in this fixed order.
  const order = ['PodDisruptionBudgets', 'Pods not terminating', 'Pod eviction errors', 'Pods not completed yet'];
  const reasons = order.filter((r) => delays.has(r));
  if (reasons.length > 0) message += `, delay likely due to ${reasons.join(', ')}`;
  return message;
}

export interface ScalingInput {
  kcp: KubeadmControlPlane;
  cluster?: Cluster;
  machines: readonly Machine[];
  /** The preflight check of this reconcile's scale operation, if one ran (upstream ControlPlane.PreflightCheckResults). */
  preflight?: PreflightCheckResults;
  nowMs: number;
}

/** Desired replicas as the scaling conditions see them: 0 while the KCP is deleting; undefined when not set. */
const desired = (kcp: KubeadmControlPlane): number | undefined =>
  kcp.spec.replicas === undefined ? undefined : kcp.metadata.deletionTimestamp ? 0 : kcp.spec.replicas;

const waitingForReplicas = (type: string): ConditionInput => ({
  type,
  status: 'Unknown',
  reason: 'WaitingForReplicasSet',
  message: 'Waiting for spec.replicas set',
});

/**
 * Upstream setScalingUpCondition. `extraBlockers` are further "* " lines after upstream's (here: an invalid
 * spec.machineNaming.template, which upstream's webhook rejects before KCP sees it).
 */
export function scalingUpCondition(
  input: ScalingInput & { infraMachineTemplateNotFound?: boolean; extraBlockers?: readonly string[] },
): ConditionInput {
  const { kcp } = input;
  const desiredReplicas = desired(kcp);
  if (desiredReplicas === undefined) return waitingForReplicas(SCALING_UP_CONDITION);
  const current = input.machines.length;
  const missing = missingReferencesMessage(kcp, input.infraMachineTemplateNotFound === true);
  if (current >= desiredReplicas) {
    return {
      type: SCALING_UP_CONDITION,
      status: 'False',
      reason: 'NotScalingUp',
      ...(missing ? { message: `Scaling up would be blocked because ${missing}` } : {}),
    };
  }
  let message = `Scaling up from ${current} to ${desiredReplicas} replicas`;
  const additional = preflightMessages(input.cluster, input.preflight);
  if (missing) additional.push(`* ${missing}`);
  for (const b of input.extraBlockers ?? []) additional.push(`* ${b}`);
  if (additional.length > 0) message += ` is blocked because:\n${additional.join('\n')}`;
  return { type: SCALING_UP_CONDITION, status: 'True', reason: 'ScalingUp', message };
}

/** Upstream setScalingDownCondition. */
export function scalingDownCondition(input: ScalingInput): ConditionInput {
  const { kcp } = input;
  const desiredReplicas = desired(kcp);
  if (desiredReplicas === undefined) return waitingForReplicas(SCALING_DOWN_CONDITION);
  const current = input.machines.length;
  if (current <= desiredReplicas) return { type: SCALING_DOWN_CONDITION, status: 'False', reason: 'NotScalingDown' };
  let message = `Scaling down from ${current} to ${desiredReplicas} replicas`;
  const additional = preflightMessages(input.cluster, input.preflight);
  const stale = aggregateStaleMachines(input.machines, input.nowMs);
  if (stale) additional.push(`* ${stale}`);
  if (additional.length > 0) message += ` is blocked because:\n${additional.join('\n')}`;
  return { type: SCALING_DOWN_CONDITION, status: 'True', reason: 'ScalingDown', message };
}
