// The readiness gates of KCP Machines (upstream controlplane/kubeadm/pkg/desiredstate/desired_state.go
// MandatoryMachineReadinessGates / etcdMandatoryMachineReadinessGates): the Machine controller's Ready summary then
// includes the conditions KCP computes from the workload cluster, so ready/available replicas mean upstream's.
import type { KubeadmControlPlane, Machine } from '@capi/api';
import {
  MACHINE_API_SERVER_POD_HEALTHY_CONDITION,
  MACHINE_CONTROLLER_MANAGER_POD_HEALTHY_CONDITION,
  MACHINE_ETCD_MEMBER_HEALTHY_CONDITION,
  MACHINE_ETCD_POD_HEALTHY_CONDITION,
  MACHINE_NODE_KUBEADM_LABELS_AND_TAINTS_SET_CONDITION,
  MACHINE_SCHEDULER_POD_HEALTHY_CONDITION,
} from './constants';
import { isEtcdManaged } from './health';

type MachineReadinessGate = NonNullable<Machine['spec']['readinessGates']>[number];

export const MANDATORY_MACHINE_READINESS_GATES: readonly MachineReadinessGate[] = [
  { conditionType: MACHINE_NODE_KUBEADM_LABELS_AND_TAINTS_SET_CONDITION },
  { conditionType: MACHINE_API_SERVER_POD_HEALTHY_CONDITION },
  { conditionType: MACHINE_CONTROLLER_MANAGER_POD_HEALTHY_CONDITION },
  { conditionType: MACHINE_SCHEDULER_POD_HEALTHY_CONDITION },
];

export const ETCD_MANDATORY_MACHINE_READINESS_GATES: readonly MachineReadinessGate[] = [
  { conditionType: MACHINE_ETCD_POD_HEALTHY_CONDITION },
  { conditionType: MACHINE_ETCD_MEMBER_HEALTHY_CONDITION },
];

/** Mandatory gates (etcd ones with managed etcd), then the machineTemplate's; the first gate of a type wins. */
export function desiredReadinessGates(kcp: KubeadmControlPlane): MachineReadinessGate[] {
  const all = [
    ...MANDATORY_MACHINE_READINESS_GATES,
    ...(isEtcdManaged(kcp) ? ETCD_MANDATORY_MACHINE_READINESS_GATES : []),
    ...(kcp.spec.machineTemplate.spec.readinessGates ?? []),
  ];
  const seen = new Set<string>();
  const gates: MachineReadinessGate[] = [];
  for (const gate of all) {
    if (seen.has(gate.conditionType)) continue;
    seen.add(gate.conditionType);
    gates.push(structuredClone(gate));
  }
  return gates;
}
