// Can the control plane lose a Machine safely? Upstream controlplane/kubeadm/reconcilers/kubeadmcontrolplane/
// remediation.go targetEtcdClusterHealthy / targetKubernetesControlPlaneComponentsHealthy: the target state (current
// members / Machines minus the one going away) is assessed from the Machines' health conditions of this reconcile.
import { isTrue, type Machine } from '@capi/api';
import { AlarmType, type MemberAlarm } from '@capi/etcd';
import {
  MACHINE_API_SERVER_POD_HEALTHY_CONDITION,
  MACHINE_CONTROLLER_MANAGER_POD_HEALTHY_CONDITION,
  MACHINE_ETCD_MEMBER_HEALTHY_CONDITION,
  MACHINE_ETCD_POD_HEALTHY_CONDITION,
  MACHINE_SCHEDULER_POD_HEALTHY_CONDITION,
} from './constants';
import type { EtcdMember } from './workload-cluster';

export interface TargetAssessment {
  ok: boolean;
  healthy: string[];
  unhealthy: string[];
}

/** A learner (upstream etcd.Member.IsLearner) when the member says so; a member without a name is one too. */
const isLearner = (m: EtcdMember): boolean => m.isLearner === true;

/**
 * Upstream targetEtcdClusterHealthy: after removing the member `toBeDeleted` (and adding one, assumed unhealthy unless
 * the cluster has at most one member), do the voting members keep quorum? Any learner (or member without a name, still
 * starting) makes it unsafe: KCP waits until it is promoted.
 */
export function targetEtcdClusterHealthy(input: {
  members: readonly EtcdMember[];
  machines: readonly Machine[];
  /** The alarms read with the members (upstream ControlPlane.EtcdMembersAlarms). */
  alarms?: readonly MemberAlarm[];
  addMember: boolean;
  toBeDeleted: string;
}): TargetAssessment {
  const healthy: string[] = [];
  const unhealthy: string[] = [];
  let learners = 0;
  let voting = 0;
  if (input.addMember) {
    voting = 1;
    if (input.members.length > 1) unhealthy.push('1 new member (worst case)');
    else healthy.push('1 new member (best case)');
  }
  for (const member of input.members) {
    if (member.name === '') {
      learners++;
      unhealthy.push('1 member starting (worst case)');
      continue;
    }
    if (member.name === input.toBeDeleted) continue;
    if (isLearner(member)) learners++;
    else voting++;
    const machine = input.machines.find((m) => m.status?.nodeRef?.name === member.name);
    if (!machine) {
      // No Machine, no EtcdMemberHealthy: the member's alarms are all there is to go by.
      const alarmed = (input.alarms ?? []).some((a) => a.type !== AlarmType.None && a.memberId === member.id);
      (alarmed ? unhealthy : healthy).push(`${member.name} (no machine)`);
      continue;
    }
    (isTrue(machine, MACHINE_ETCD_MEMBER_HEALTHY_CONDITION) ? healthy : unhealthy).push(
      `${member.name} (${machine.metadata.name})`,
    );
  }
  // Integer division, as upstream: (targetVotingMembers / 2.0) + 1 is truncated to an int there.
  const quorum = Math.floor(voting / 2) + 1;
  const ok = learners === 0 && voting - unhealthy.length >= quorum;
  return { ok, healthy, unhealthy };
}

/**
 * Upstream targetKubernetesControlPlaneComponentsHealthy: after removing the Machine `toBeDeleted` (and adding one,
 * assumed unhealthy unless there are no Machines), is there still a Machine with every control-plane component healthy
 * (etcd Pod included when etcd is managed)?
 */
export function targetKubernetesControlPlaneComponentsHealthy(input: {
  machines: readonly Machine[];
  etcdManaged: boolean;
  addMachine: boolean;
  toBeDeleted: string;
}): TargetAssessment {
  const healthy: string[] = [];
  const unhealthy: string[] = [];
  if (input.addMachine) {
    if (input.machines.length > 0) unhealthy.push('1 new machine (worst case)');
    else healthy.push('1 new machine (best case)');
  }
  const required = [
    MACHINE_API_SERVER_POD_HEALTHY_CONDITION,
    MACHINE_CONTROLLER_MANAGER_POD_HEALTHY_CONDITION,
    MACHINE_SCHEDULER_POD_HEALTHY_CONDITION,
    ...(input.etcdManaged ? [MACHINE_ETCD_POD_HEALTHY_CONDITION] : []),
  ];
  for (const machine of input.machines) {
    const name = machine.metadata.name ?? '';
    if (name === input.toBeDeleted) continue;
    (required.every((t) => isTrue(machine, t)) ? healthy : unhealthy).push(name);
  }
  return { ok: healthy.length >= 1, healthy, unhealthy };
}
