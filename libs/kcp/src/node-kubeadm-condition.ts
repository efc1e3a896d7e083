// The NodeKubeadmLabelsAndTaintsSet condition of a KCP Machine (upstream controlplane/kubeadm/pkg
// workload_cluster_conditions.go updateNodeCondition, control_plane.go DefaultTaintIsMissing): the Node carries
// kubeadm's control-plane label and, when kubeadm would have set it, the control-plane NoSchedule taint.
import type { ConditionInput, KubeadmConfig, Machine } from '@capi/api';
import { MACHINE_NODE_KUBEADM_LABELS_AND_TAINTS_SET_CONDITION } from './constants';
import { isJoinConfig } from './kubeadm-diff';
import { CONTROL_PLANE_NODE_ROLE_LABEL, type WorkloadNode } from './workload-cluster';

export const NODE_KUBEADM_LABELS_AND_TAINTS_SET_REASON = 'Set';
export const NODE_KUBEADM_LABELS_AND_TAINTS_NOT_SET_REASON = 'NotSet';

type Taint = { key: string; effect?: string };
const isDefaultTaint = (t: Taint): boolean => t.key === CONTROL_PLANE_NODE_ROLE_LABEL && t.effect === 'NoSchedule';

/**
 * The Node should have the default control-plane taint: the Machine lists it, or its KubeadmConfig's node registration
 * sets no taints (kubeadm's default) or lists it. Without a KubeadmConfig KCP cannot tell, and does not require it.
 */
export function shouldHaveDefaultTaint(machine: Machine, kubeadmConfig: KubeadmConfig | undefined): boolean {
  if ((machine.spec.taints ?? []).some(isDefaultTaint)) return true;
  if (!kubeadmConfig) return false;
  const spec = kubeadmConfig.spec as Record<string, { nodeRegistration?: { taints?: Taint[] } } | undefined>;
  const registration = (isJoinConfig(kubeadmConfig.spec) ? spec.joinConfiguration : spec.initConfiguration)
    ?.nodeRegistration;
  if (registration?.taints === undefined || registration.taints === null) return true;
  return registration.taints.some(isDefaultTaint);
}

/** Upstream DefaultTaintIsMissing. */
export function defaultTaintIsMissing(
  machine: Machine,
  node: WorkloadNode,
  kubeadmConfig: KubeadmConfig | undefined,
): boolean {
  return shouldHaveDefaultTaint(machine, kubeadmConfig) && !(node.taints ?? []).some(isDefaultTaint);
}

/** Upstream updateNodeCondition, for a Machine whose Node exists. */
export function nodeKubeadmLabelsAndTaintsCondition(
  machine: Machine,
  node: WorkloadNode,
  kubeadmConfig: KubeadmConfig | undefined,
): ConditionInput {
  const type = MACHINE_NODE_KUBEADM_LABELS_AND_TAINTS_SET_CONDITION;
  const nodeName = machine.status?.nodeRef?.name ?? node.name;
  let message = node.controlPlane ? '' : `Node ${nodeName} does not have the ${CONTROL_PLANE_NODE_ROLE_LABEL} label`;
  if (defaultTaintIsMissing(machine, node, kubeadmConfig)) {
    message = message
      ? `${message} and the ${CONTROL_PLANE_NODE_ROLE_LABEL}:NoSchedule taint`
      : `Node ${nodeName} does not have the ${CONTROL_PLANE_NODE_ROLE_LABEL}:NoSchedule taint`;
  }
  return message
    ? { type, status: 'False', reason: NODE_KUBEADM_LABELS_AND_TAINTS_NOT_SET_REASON, message }
    : { type, status: 'True', reason: NODE_KUBEADM_LABELS_AND_TAINTS_SET_REASON };
}
