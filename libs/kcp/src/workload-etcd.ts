// What KCP does with a workload cluster's etcd (upstream controlplane/kubeadm/pkg/workload_cluster_etcd.go
// RemoveEtcdMember / ForwardEtcdLeadership and workload_cluster_conditions.go getCurrentEtcdMembersAndAlarms /
// getNodeNamesSortedByLastKnownEtcdHealth), over an etcd client generator (@capi/etcd). Members are named after
// their Node (kubeadm).
import { getCondition, type Machine } from '@capi/api';
import {
  errorMessage,
  memberForId,
  memberForName,
  rootCause,
  wrapError,
  type EtcdClient,
  type EtcdMember,
  type MemberAlarm,
} from '@capi/etcd';
import { MACHINE_ETCD_MEMBER_HEALTHY_CONDITION } from './constants';

/** Clients for the members on given Nodes (upstream etcdClientFor; EtcdClientGenerator implements it). */
export interface EtcdClientFor {
  forFirstAvailableNode(nodeNames: readonly string[]): Promise<EtcdClient>;
}

/**
 * The members, the leader and the alarms, read through one member; or why not, with the message the Machines'
 * EtcdMemberHealthy condition carries (none when the leader is not among the members: the conditions stay as they are).
 */
export type EtcdMembersAndAlarms =
  { members: EtcdMember[]; leader: EtcdMember; alarms: MemberAlarm[] } | { error: string; machineMessage?: string };

async function withClient<T>(client: EtcdClient, work: (c: EtcdClient) => Promise<T>): Promise<T> {
  try {
    return await work(client);
  } finally {
    await Promise.resolve(client.close()).catch(() => undefined);
  }
}

/**
 * Upstream getCurrentEtcdMembersAndAlarms: MemberList and AlarmList need quorum, so any member will do; the first of
 * `nodeNames` that connects answers.
 */
export async function readEtcdMembersAndAlarms(
  etcd: EtcdClientFor,
  nodeNames: readonly string[],
): Promise<EtcdMembersAndAlarms> {
  let client: EtcdClient;
  try {
    client = await etcd.forFirstAvailableNode(nodeNames);
  } catch (e) {
    return {
      error: `failed to get an etcd client for ${nodeNames.join(',')} Nodes: ${errorMessage(e)}`,
      machineMessage: `Failed to connect to etcd: ${errorMessage(rootCause(e))}`,
    };
  }
  return withClient(client, async (c) => {
    let members: EtcdMember[];
    try {
      members = await c.members();
    } catch (e) {
      return {
        error: `failed to get etcd members: ${errorMessage(e)}`,
        machineMessage: `Failed to get etcd members: ${errorMessage(rootCause(e))}`,
      };
    }
    const leader = memberForId(members, c.leaderId);
    if (!leader) return { error: 'failed to get etcd leader' };
    try {
      return { members, leader, alarms: await c.alarms() };
    } catch (e) {
      return {
        error: `failed to get etcd alarms: ${errorMessage(e)}`,
        machineMessage: `Failed to get etcd alarms: ${errorMessage(rootCause(e))}`,
      };
    }
  });
}

/**
 * Upstream RemoveEtcdMember: removes `member` through a member on another Node (the Node named as the member is left
 * out). Already gone is success; removing the last member is refused. The caller checks that quorum survives.
 */
export async function removeEtcdMember(
  etcd: EtcdClientFor,
  /** The member (by id; by name when no id is known, e.g. the member of a Machine's Node). */
  member: { id?: string; name: string },
  nodeNames: readonly string[],
): Promise<void> {
  const remaining = nodeNames.filter((n) => n !== member.name);
  let client: EtcdClient;
  try {
    client = await etcd.forFirstAvailableNode(remaining);
  } catch (e) {
    throw wrapError(e, 'failed to create etcd client');
  }
  await withClient(client, async (c) => {
    let members: EtcdMember[];
    try {
      // Goes through consensus: this also checks the cluster is healthy.
      members = await c.members();
    } catch (e) {
      throw wrapError(e, 'failed to list etcd members using etcd client');
    }
    const found = member.id !== undefined ? memberForId(members, member.id) : memberForName(members, member.name);
    if (!found) return;
    if (members.length === 1) throw new Error('cannot remove the last etcd member in the cluster');
    try {
      await c.removeMember(found.id);
    } catch (e) {
      throw wrapError(e, 'failed to remove member from etcd');
    }
  });
}

/** Upstream ForwardEtcdLeadership: moves leadership from `fromMember` to `toMember` if `fromMember` leads. */
export async function forwardEtcdLeadership(etcd: EtcdClientFor, fromMember: string, toMember: string): Promise<void> {
  // MoveLeader must be called on the leader: connect to the member that is to hand over.
  let client: EtcdClient;
  try {
    client = await etcd.forFirstAvailableNode([fromMember]);
  } catch (e) {
    throw wrapError(e, 'failed to create etcd client');
  }
  await withClient(client, async (c) => {
    let members: EtcdMember[];
    try {
      members = await c.members();
    } catch (e) {
      throw wrapError(e, 'failed to list etcd members using etcd client');
    }
    const current = memberForName(members, fromMember);
    if (!current || current.id !== c.leaderId) return;
    const next = memberForName(members, toMember);
    if (!next) throw new Error(`failed to get etcd member for leader candidate "${toMember}"`);
    try {
      await c.moveLeader(next.id);
    } catch (e) {
      throw wrapError(e, 'failed to move leader');
    }
  });
}

/**
 * Upstream getNodeNamesSortedByLastKnownEtcdHealth: the Nodes of `machines`, those whose member was last known
 * healthy first (most likely to answer); Nodes without a Machine are left out.
 */
export function nodeNamesSortedByLastKnownEtcdHealth(
  nodeNames: readonly string[],
  machines: readonly Machine[],
): string[] {
  const healthy = new Map<string, boolean>();
  for (const node of nodeNames) {
    const machine = machines.find((m) => m.status?.nodeRef?.name === node);
    if (!machine) continue;
    healthy.set(node, getCondition(machine, MACHINE_ETCD_MEMBER_HEALTHY_CONDITION)?.status === 'True');
  }
  const names = [...healthy.keys()];
  // Stable: among equals, the order of the Nodes.
  return names.sort((a, b) => Number(healthy.get(b)) - Number(healthy.get(a)));
}
