// Etcd members without a Machine are removed (upstream controlplane/kubeadm/reconcilers/kubeadmcontrolplane/
// kubeadmcontrolplane_controller.go reconcileEtcdMembers, with remediation.go targetEtcdClusterHealthy, target-health.ts,
// as its quorum guard): a safeguard for a member removal that did not happen during a Machine's deletion, and against members KCP
// does not manage. Pure: the reconciler passes what it observed this reconcile.
import type { ConditionInput, Machine } from '@capi/api';
import type { MemberAlarm } from '@capi/etcd';
import { targetEtcdClusterHealthy } from './target-health';
import type { EtcdMember } from './workload-cluster';

export interface EtcdMembersInput {
  etcdManaged: boolean;
  machines: readonly Machine[];
  /** The EtcdMemberHealthy conditions computed this reconcile, by Machine (else the Machines' own). */
  machineHealth?: ReadonlyMap<string, readonly ConditionInput[]>;
  /** The members read this reconcile; undefined or empty when they could not be read. */
  members: readonly EtcdMember[] | undefined;
  alarms?: readonly MemberAlarm[];
  /** Why the Nodes could not be read. */
  nodeListError?: string;
  /** The KCP's EtcdClusterHealthy condition is True (no member/Machine mismatch). */
  etcdClusterHealthy: boolean;
}

export type EtcdMembersDecision =
  | { type: 'none'; log?: string }
  | { type: 'error'; message: string }
  | { type: 'remove'; member: EtcdMember; log: string; memberLabel: string };

const NAME_NOT_ASSIGNED = '(Name not yet assigned)';

/** The Machines carrying this reconcile's EtcdMemberHealthy (upstream sets the conditions in memory first). */
function withComputedHealth(input: Pick<EtcdMembersInput, 'machines' | 'machineHealth'>): Machine[] {
  return input.machines.map((m) => {
    const computed = input.machineHealth?.get(m.metadata.name ?? '') ?? [];
    if (computed.length === 0) return m;
    const types = new Set(computed.map((c) => c.type));
    const kept = (m.status?.conditions ?? []).filter((c) => !types.has(c.type));
    const now = new Date(0).toISOString();
    return {
      ...m,
      status: { ...m.status, conditions: [...kept, ...computed.map((c) => ({ ...c, lastTransitionTime: now }))] },
    } as Machine;
  });
}

/** Upstream reconcileEtcdMembers: at most one member to remove per reconcile, with its guards. */
export function decideEtcdMembers(input: EtcdMembersInput): EtcdMembersDecision {
  if (!input.etcdManaged || input.machines.length === 0) return { type: 'none' };
  const members = input.members ?? [];
  if (members.length === 0) return { type: 'none' };
  if (input.nodeListError !== undefined)
    return { type: 'error', message: `unable to reconcile etcd members: ${input.nodeListError}` };
  if (input.etcdClusterHealthy) return { type: 'none' };

  const provisioning = input.machines.filter((m) => !m.status?.nodeRef?.name).map((m) => m.metadata.name ?? '');
  const expected = new Set(input.machines.map((m) => m.status?.nodeRef?.name).filter((n): n is string => !!n));
  // A member without a name yet is unexpected too.
  const unexpected = members.filter((m) => !expected.has(m.name));
  if (unexpected.length === 0) return { type: 'none' };
  const names = unexpected.map((m) => m.name || NAME_NOT_ASSIGNED).sort();
  if (provisioning.length > 0)
    return {
      type: 'none',
      log: `Etcd members ${names.join(', ')} without corresponding Machines, potential match with provisioning machines ${provisioning.join(', ')}`,
    };

  const member = [...unexpected].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))[0];
  const memberLabel = member.name || NAME_NOT_ASSIGNED;
  // A member without a name has not started (or is a learner) and will never be promoted without a Machine: no
  // quorum check, which would fail on learners anyway.
  if (
    member.name !== '' &&
    !targetEtcdClusterHealthy({
      members,
      machines: withComputedHealth(input),
      alarms: input.alarms,
      addMember: false,
      toBeDeleted: member.name,
    }).ok
  )
    return {
      type: 'error',
      message: `etcd member ${memberLabel} does not have a corresponding Machine, it must be removed from the cluster but this operation can lead to quorum loss. Please check the etcd status`,
    };
  return {
    type: 'remove',
    member,
    memberLabel,
    log: `Etcd members ${names.join(', ')} without corresponding Machines, removing member ${member.name}`,
  };
}
