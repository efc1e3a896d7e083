// KCP replica counters, status.initialization and the Initialized condition (upstream
// controlplane/kubeadm/reconcilers/kubeadmcontrolplane/status.go setReplicas, setControlPlaneInitialized,
// setInitializedCondition).
import {
  AVAILABLE_CONDITION,
  READY_CONDITION,
  UP_TO_DATE_CONDITION,
  isMachineToBeRemediated,
  isTrue,
  type ConditionInput,
  type KubeadmControlPlane,
  type Machine,
} from '@capi/api';
import { KCP_INITIALIZED_CONDITION } from '../available';

export interface ReplicaCounters {
  replicas: number;
  readyReplicas: number;
  availableReplicas: number;
  upToDateReplicas: number;
}

/** Upstream setReplicas: every count from the Machines' own conditions. */
export function replicaCounters(machines: readonly Machine[]): ReplicaCounters {
  return {
    replicas: machines.length,
    readyReplicas: machines.filter((m) => isTrue(m, READY_CONDITION)).length,
    availableReplicas: machines.filter((m) => isTrue(m, AVAILABLE_CONDITION)).length,
    upToDateReplicas: machines.filter((m) => isTrue(m, UP_TO_DATE_CONDITION)).length,
  };
}

/**
 * Upstream setControlPlaneInitialized: once true, always true. Upstream's proxy for "kubeadm init completed" is the
 * kubeadm-config ConfigMap; here it is a Ready control-plane Node or a Machine with a nodeRef. A single Machine that is
 * deleting or to be remediated does not count (kubeadm init may finish just before it goes, and the replacement would
 * then try to join a control plane that no longer exists).
 */
export function controlPlaneInitialized(
  kcp: KubeadmControlPlane,
  machines: readonly Machine[],
  controlPlaneNodeReady: boolean,
): boolean {
  if (kcp.status?.initialization?.controlPlaneInitialized === true) return true;
  if (machines.length === 1 && (isMachineToBeRemediated(machines[0]) || machines[0].metadata.deletionTimestamp))
    return false;
  return controlPlaneNodeReady || machines.some((m) => !!m.status?.nodeRef);
}

/** Upstream setInitializedCondition. */
export function initializedCondition(initialized: boolean): ConditionInput {
  return initialized
    ? { type: KCP_INITIALIZED_CONDITION, status: 'True', reason: 'Initialized' }
    : { type: KCP_INITIALIZED_CONDITION, status: 'False', reason: 'NotInitialized' };
}
