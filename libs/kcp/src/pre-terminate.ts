// KCP's pre-terminate hook (upstream controlplane/kubeadm/reconcilers/kubeadmcontrolplane/
// kubeadmcontrolplane_controller.go reconcilePreTerminateHook, getCandidatesForEtcdLeadership,
// machineHasOtherPreTerminateHooks): every KCP Machine carries `pre-terminate.delete.hook.machine.cluster.x-k8s.io/
// kcp-cleanup`, so the Machine controller stops before deleting the InfraMachine (the kubelet and the static Pods still
// run); KCP then moves etcd leadership away, removes the etcd member and removes the hook. Pure decisions; the I/O is
// in pre-terminate-io.ts.
import {
  HEALTH_CHECK_SUCCEEDED_CONDITION,
  KCP_PRE_TERMINATE_HOOK_CLEANUP_ANNOTATION,
  MACHINE_DELETING_WAITING_FOR_PRE_TERMINATE_HOOK_REASON,
  PRE_TERMINATE_DELETE_HOOK_ANNOTATION_PREFIX,
  DELETING_CONDITION,
  UP_TO_DATE_CONDITION,
  getCondition,
  isTrue,
  type KubeadmControlPlane,
  type Machine,
} from '@capi/api';
import { parseKubernetesVersion } from '@capi/apimachinery';
import { MACHINE_ETCD_MEMBER_HEALTHY_CONDITION } from './constants';
import { targetEtcdClusterHealthy, targetKubernetesControlPlaneComponentsHealthy } from './target-health';
import type { MemberAlarm } from '@capi/etcd';
import type { EtcdMember } from './workload-cluster';

/** Upstream deleteRequeueAfter: how often KCP looks again at Machines being deleted. */
export const DELETE_REQUEUE_AFTER_MS = 30_000;

export const hasKcpPreTerminateHook = (m: Machine): boolean =>
  KCP_PRE_TERMINATE_HOOK_CLEANUP_ANNOTATION in (m.metadata.annotations ?? {});

/** Another pre-terminate hook than KCP's (anyone's: the prefix counts, as upstream strings.HasPrefix). */
export const machineHasOtherPreTerminateHooks = (m: Machine): boolean =>
  Object.keys(m.metadata.annotations ?? {}).some(
    (k) => k.startsWith(PRE_TERMINATE_DELETE_HOOK_ANNOTATION_PREFIX) && k !== KCP_PRE_TERMINATE_HOOK_CLEANUP_ANNOTATION,
  );

const ms = (t: string | undefined): number => (t ? Date.parse(t) : Number.NaN);

/** Upstream Machines.OldestDeletionTimestamp: the oldest deletionTimestamp, names breaking ties. */
export function oldestDeleting(machines: readonly Machine[]): Machine | undefined {
  return machines
    .filter((m) => m.metadata.deletionTimestamp)
    .sort(
      (a, b) =>
        ms(a.metadata.deletionTimestamp) - ms(b.metadata.deletionTimestamp) ||
        (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''),
    )[0];
}

/**
 * Upstream getCandidatesForEtcdLeadership: Machines with a Node, not deleting, other than `deleting`; the most reliable
 * first: etcd member healthy, then not unhealthy for MHC, then up-to-date, then the newest.
 */
export function getCandidatesForEtcdLeadership(machines: readonly Machine[], deleting: Machine): Machine[] {
  const rank = (m: Machine) => [
    isTrue(m, MACHINE_ETCD_MEMBER_HEALTHY_CONDITION),
    isTrue(m, HEALTH_CHECK_SUCCEEDED_CONDITION),
    isTrue(m, UP_TO_DATE_CONDITION),
  ];
  return machines
    .filter(
      (m) =>
        !!m.status?.nodeRef?.name &&
        !m.metadata.deletionTimestamp &&
        !(m.metadata.name === deleting.metadata.name && m.metadata.namespace === deleting.metadata.namespace),
    )
    .sort((a, b) => {
      const [ra, rb] = [rank(a), rank(b)];
      for (let i = 0; i < ra.length; i++) if (ra[i] !== rb[i]) return ra[i] ? -1 : 1;
      return (
        ms(b.metadata.creationTimestamp) - ms(a.metadata.creationTimestamp) ||
        (a.metadata.name ?? '').localeCompare(b.metadata.name ?? '')
      );
    });
}

export interface PreTerminateInput {
  kcp: KubeadmControlPlane;
  /** The KCP's Machines, carrying this reconcile's health and UpToDate conditions (upstream sets them in memory). */
  machines: readonly Machine[];
  etcdManaged: boolean;
  /** Reading the workload cluster's Nodes failed (upstream NodeListError). */
  nodesError?: string;
  /** The etcd members as read this reconcile; undefined when they could not be read. */
  etcdMembers?: readonly EtcdMember[];
  /**
   * The etcd leader read with the members (upstream ControlPlane.EtcdLeader): null when none was detected (moving the
   * leadership then fails, as upstream); undefined when the observation does not read it, and
   * WorkloadCluster.forwardEtcdLeadership alone tells whether the Machine's member leads.
   */
  etcdLeader?: EtcdLeader | null;
  /** The alarms read with the members (upstream ControlPlane.EtcdMembersAlarms). */
  etcdAlarms?: readonly MemberAlarm[];
}

export type EtcdLeader = Pick<EtcdMember, 'name'>;

export type PreTerminateDecision =
  /** No deleting Machine: the reconcile goes on. */
  | { type: 'none' }
  /** Look again after DELETE_REQUEUE_AFTER_MS. */
  | { type: 'wait'; why: string }
  /** Remove the hook without touching etcd, then look again after DELETE_REQUEUE_AFTER_MS. */
  | { type: 'removeHook'; machine: Machine; why: string }
  /**
   * Move etcd leadership off the Machine's member (to the first candidate that takes it), remove the member when it
   * is listed, remove the hook, then look again after DELETE_REQUEUE_AFTER_MS.
   */
  | {
      type: 'removeEtcdMember';
      machine: Machine;
      member?: EtcdMember;
      candidates: Machine[];
      etcdLeader?: EtcdLeader | null;
    }
  | { type: 'error'; message: string };

/** Upstream reconcilePreTerminateHook's decisions, one deleting Machine (the oldest) at a time. */
export function decidePreTerminateHook(input: PreTerminateInput): PreTerminateDecision {
  const deleting = input.machines.filter((m) => m.metadata.deletionTimestamp);
  if (deleting.length === 0) return { type: 'none' };
  // A deleting Machine without the hook goes on by itself: wait until it is gone before running the hook on others.
  const without = deleting.find((m) => !hasKcpPreTerminateHook(m));
  if (without) return { type: 'wait', why: `Machine ${without.metadata.name} is being deleted without the KCP hook` };
  const machine = oldestDeleting(deleting)!;
  const name = machine.metadata.name ?? '';

  const version = parseKubernetesVersion(input.kcp.spec.version ?? '');
  if (!version)
    return { type: 'error', message: `failed to parse Kubernetes version ${JSON.stringify(input.kcp.spec.version)}` };
  // KCP's hook runs last so that the kubelet still works while other pre-terminate hooks run (only from Kubernetes
  // v1.31, pre-releases compared as their release, to reduce the blast radius).
  if ((version.major > 1 || (version.major === 1 && version.minor >= 31)) && machineHasOtherPreTerminateHooks(machine))
    return { type: 'wait', why: `Machine ${name} has other pre-terminate hooks` };

  const deletingCondition = getCondition(machine, DELETING_CONDITION);
  if (
    deletingCondition?.status !== 'True' ||
    deletingCondition.reason !== MACHINE_DELETING_WAITING_FOR_PRE_TERMINATE_HOOK_REASON
  )
    return {
      type: 'wait',
      why: `the Machine controller is not waiting for the pre-terminate hook of Machine ${name} yet`,
    };

  // The last control-plane Machine: nothing to keep healthy.
  if (input.machines.length <= 1) return { type: 'removeHook', machine, why: 'last control plane Machine' };

  // Deleting this Machine must leave a working control plane (again: scale down and remediation checked it before).
  const components = targetKubernetesControlPlaneComponentsHealthy({
    machines: input.machines,
    etcdManaged: input.etcdManaged,
    addMachine: false,
    toBeDeleted: name,
  });
  if (!components.ok)
    return {
      type: 'wait',
      why: `Cannot delete control plane Machine ${machine.metadata.namespace}/${name} when there are no control plane Machines with all Kubernetes control plane components in healthy state. Please check Kubernetes control plane component status`,
    };
  if (!input.etcdManaged) return { type: 'removeHook', machine, why: 'etcd is not managed by KCP' };

  if (input.nodesError) return { type: 'error', message: `unable to remove pre-terminate hook: ${input.nodesError}` };
  if (!input.etcdMembers?.length)
    return { type: 'error', message: 'unable to remove pre-terminate hook, etcd member list is empty' };

  // kubeadm names the etcd member after the Node. Without a Node no more checks are possible: the hook goes, and
  // reconcileEtcdMembers cleans up a member reported later.
  const memberName = machine.status?.nodeRef?.name ?? '';
  if (!memberName) return { type: 'removeHook', machine, why: 'the etcd member name of the Machine is not known' };

  const etcd = targetEtcdClusterHealthy({
    members: input.etcdMembers,
    machines: input.machines,
    alarms: input.etcdAlarms,
    addMember: false,
    toBeDeleted: memberName,
  });
  if (!etcd.ok)
    return {
      type: 'wait',
      why: `Cannot delete control plane Machine ${machine.metadata.namespace}/${name}, the operation can lead to etcd quorum loss. Please check the etcd status`,
    };
  return {
    type: 'removeEtcdMember',
    machine,
    member: input.etcdMembers.find((m) => m.name === memberName),
    candidates: getCandidatesForEtcdLeadership(input.machines, machine),
    etcdLeader: input.etcdLeader,
  };
}
