// The simulated etcd cluster of a workload cluster (pure): its members and alarms, and what each member answers to
// the RPCs KCP calls. Semantics of upstream's in-memory etcd (test/infrastructure/inmemory/pkg/server/etcd/handler.go
// and reconcileNormalETCD in test/infrastructure/docker/reconcilers/backends/inmemory/inmemorymachine_backend.go):
// the first member picks a random cluster ID and leads, every member gets a random non-zero ID, the leader is the
// member that became leader last ("leader-from"), a removed member answers nothing but an error. Errors are etcd's
// own (go.etcd.io/etcd/api/v3rpc/rpctypes/error.go) where etcd has one for the case.
//
// Unlike upstream, a member outlives its host (as in real etcd, where a member stays until MemberRemove): when the
// host goes, its member stays listed but down until someone (KCP's reconcileEtcdMembers) removes it.

/** gRPC status codes used here (google.golang.org/grpc/codes). */
export const GRPC_UNKNOWN = 2;
export const GRPC_NOT_FOUND = 5;
export const GRPC_FAILED_PRECONDITION = 9;
export const GRPC_UNAVAILABLE = 14;

/** An error a member answers with: a gRPC status code and etcd's message. */
export class EtcdRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'EtcdRpcError';
  }
}

export const errMemberNotFound = () => new EtcdRpcError(GRPC_NOT_FOUND, 'etcdserver: member not found');
export const errNotLeader = () => new EtcdRpcError(GRPC_FAILED_PRECONDITION, 'etcdserver: not leader');
export const errBadLeaderTransferee = () =>
  new EtcdRpcError(GRPC_FAILED_PRECONDITION, 'etcdserver: bad leader transferee');
export const errNotEnoughStarted = () =>
  new EtcdRpcError(GRPC_FAILED_PRECONDITION, 'etcdserver: re-configuration failed due to not enough started members');
export const errUnhealthy = () => new EtcdRpcError(GRPC_UNAVAILABLE, 'etcdserver: unhealthy cluster');
export const errStopped = () => new EtcdRpcError(GRPC_UNAVAILABLE, 'etcdserver: server stopped');
/** What upstream's in-memory etcd answers on a removed member (handler.go inspectEtcd). */
export const errRemoved = () => new EtcdRpcError(GRPC_UNKNOWN, 'inspect called on etcd which has been removed');

export type EtcdAlarmType = 'NOSPACE' | 'CORRUPT';
export const ETCD_ALARM_TYPES: readonly EtcdAlarmType[] = ['NOSPACE', 'CORRUPT'];

export interface EtcdAlarm {
  memberID: string;
  alarm: EtcdAlarmType;
}

export interface EtcdMemberRecord {
  /** Member ID, a non-zero uint64 in decimal (64-bit IDs do not fit a JS number). */
  id: string;
  /** kubeadm names the member after its Node. */
  name: string;
  peerURLs: string[];
  clientURLs: string[];
  /** When it became leader (epoch ms); the latest among the members that run leads (upstream leader-from). */
  leaderFrom?: number;
  /** MemberRemove'd while its host still runs (upstream member-removed): it answers only errors. */
  removed?: boolean;
  /** Its host is gone: still a member (listed, counted for quorum) until removed, but it runs nowhere. */
  down?: boolean;
}

export interface EtcdClusterState {
  /** Cluster ID, a non-zero uint64 in decimal, picked by the first member. */
  clusterID: string;
  members: EtcdMemberRecord[];
  alarms: EtcdAlarm[];
}

/** A random non-zero uint64 in decimal. */
export type RandomId = () => string;

export interface ResponseHeader {
  cluster_id: string;
  member_id: string;
  revision: string;
  raft_term: string;
}

export interface WireMember {
  ID: string;
  name: string;
  peerURLs: string[];
  clientURLs: string[];
  isLearner: boolean;
}

const isListed = (m: EtcdMemberRecord) => !m.removed;
const runs = (m: EtcdMemberRecord) => !m.removed && !m.down;
const quorumOf = (n: number) => Math.floor(n / 2) + 1;

/** etcd's peer and client URLs of a kubeadm member (https on the host's IP, 2380 and 2379). */
export const memberURLs = (ip: string) => ({ peerURLs: [`https://${ip}:2380`], clientURLs: [`https://${ip}:2379`] });

/**
 * The host `name` starts its etcd member: the first one creates the cluster and leads, later ones join. A host whose
 * member exists already (re-registered, updated in place, or removed while the host still runs) changes nothing.
 */
export function joinMember(
  state: EtcdClusterState | undefined,
  host: { name: string; ip: string },
  randomId: RandomId,
  now: number,
): { state: EtcdClusterState; member: EtcdMemberRecord; changed: boolean } {
  const existing = state?.members.find((m) => m.name === host.name);
  if (state && existing) {
    if (!existing.down || existing.removed) return { state, member: existing, changed: false };
    // The host is back (a restarted provider re-registers it): the member runs again.
    const member = { ...existing, down: undefined };
    return { state: replaceMember(state, member), member, changed: true };
  }
  const base: EtcdClusterState = state ?? { clusterID: nonZero(randomId), members: [], alarms: [] };
  const taken = new Set(base.members.map((m) => m.id));
  let id = nonZero(randomId);
  while (taken.has(id)) id = nonZero(randomId);
  const member: EtcdMemberRecord = { id, name: host.name, ...memberURLs(host.ip) };
  // A cluster being created has no leader yet: its first member leads.
  if (!base.members.some(isListed)) member.leaderFrom = now;
  return { state: { ...base, members: [...base.members, member] }, member, changed: true };
}

/** The host `name` is gone: a removed member goes with it, any other stays a member that runs nowhere. */
export function hostGone(state: EtcdClusterState, name: string): EtcdClusterState {
  const m = state.members.find((x) => x.name === name);
  if (!m) return state;
  if (m.removed) return { ...state, members: state.members.filter((x) => x !== m) };
  return m.down ? state : replaceMember(state, { ...m, down: true });
}

/**
 * The leader's ID, "0" when there is none: the running member that became leader last (upstream); when none of the
 * running members ever led but they hold a quorum, the first of them (raft elects someone); else none.
 */
export function leaderOf(state: EtcdClusterState): string {
  const running = state.members.filter(runs);
  let leader: EtcdMemberRecord | undefined;
  for (const m of running) if (m.leaderFrom !== undefined && (!leader || m.leaderFrom > leader.leaderFrom!)) leader = m;
  if (leader) return leader.id;
  const voting = state.members.filter(isListed).length;
  return running.length > 0 && running.length >= quorumOf(voting) ? running[0].id : '0';
}

/** The member `name` as the one answering a request: it must exist, run and not be removed. */
export function answeringMember(state: EtcdClusterState | undefined, name: string): EtcdMemberRecord {
  const m = state?.members.find((x) => x.name === name);
  if (!m) throw errStopped();
  if (m.removed) throw errRemoved();
  if (m.down) throw errStopped();
  return m;
}

export function headerOf(state: EtcdClusterState, member: EtcdMemberRecord): ResponseHeader {
  return { cluster_id: state.clusterID, member_id: member.id, revision: '1', raft_term: '2' };
}

export function wireMembers(state: EtcdClusterState): WireMember[] {
  return state.members
    .filter(isListed)
    .map((m) => ({ ID: m.id, name: m.name, peerURLs: m.peerURLs, clientURLs: m.clientURLs, isLearner: false }));
}

/** Cluster.MemberList as member `name` answers it. */
export function memberList(state: EtcdClusterState | undefined, name: string) {
  const me = answeringMember(state, name);
  return { header: headerOf(state!, me), members: wireMembers(state!) };
}

/** The etcd version the simulated members run (the image of the etcd static Pod, host/control-plane.ts). */
export const ETCD_VERSION = '3.5.15';

/** Maintenance.Status as member `name` answers it (errors: the active alarms, as etcd's Status lists them). */
export function status(state: EtcdClusterState | undefined, name: string) {
  const me = answeringMember(state, name);
  return {
    header: headerOf(state!, me),
    version: ETCD_VERSION,
    dbSize: '20480',
    dbSizeInUse: '20480',
    leader: leaderOf(state!),
    raftIndex: '1',
    raftTerm: '2',
    raftAppliedIndex: '1',
    errors: state!.alarms.map((a) => `memberID:${a.memberID} alarm:${a.alarm} `),
    isLearner: false,
  };
}

/**
 * Cluster.MemberRemove sent to member `name` (etcd's checks, server.go mayRemoveMember with strict reconfiguration,
 * kubeadm's default): an unknown or already removed member is not found; the remaining started members must keep a
 * quorum; a running member may go only if the others that run keep a quorum.
 */
export function removeMember(
  state: EtcdClusterState | undefined,
  name: string,
  id: string,
): { state: EtcdClusterState; response: { header: ResponseHeader; members: WireMember[] } } {
  const me = answeringMember(state, name);
  const s = state!;
  const target = s.members.find((m) => m.id === id && isListed(m));
  if (!target) throw errMemberNotFound();
  const voting = s.members.filter(isListed);
  if (voting.length - 1 < quorumOf(voting.length - 1)) throw errNotEnoughStarted();
  // A member that is down is safe to remove; else those that run must keep 1 + (n-1)/2 after it goes.
  if (runs(target) && voting.filter(runs).length - 1 < 1 + Math.floor((voting.length - 1) / 2)) throw errUnhealthy();
  // Removed while its host runs: kept (answering errors) until the host goes; else gone now.
  const next = target.down
    ? { ...s, members: s.members.filter((m) => m !== target) }
    : replaceMember(s, { ...target, removed: true, leaderFrom: undefined });
  return { state: next, response: { header: headerOf(next, me), members: wireMembers(next) } };
}

/**
 * Maintenance.MoveLeader sent to member `name`: only the leader moves leadership (etcd's ErrNotLeader), to a member
 * that runs (else a bad transferee); the target becomes the member that led last (upstream sets its leader-from).
 */
export function moveLeader(
  state: EtcdClusterState | undefined,
  name: string,
  targetID: string,
  now: number,
): { state: EtcdClusterState; response: { header: ResponseHeader }; changed: boolean } {
  const me = answeringMember(state, name);
  const s = state!;
  if (leaderOf(s) !== me.id) throw errNotLeader();
  const target = s.members.find((m) => m.id === targetID && runs(m));
  if (!target) throw errBadLeaderTransferee();
  if (target.id === me.id) return { state: s, response: { header: headerOf(s, me) }, changed: false };
  const latest = Math.max(0, ...s.members.map((m) => m.leaderFrom ?? 0));
  const next = replaceMember(s, { ...target, leaderFrom: Math.max(now, latest + 1) });
  return { state: next, response: { header: headerOf(next, me) }, changed: true };
}

export type AlarmAction = 'GET' | 'ACTIVATE' | 'DEACTIVATE';

/**
 * Maintenance.Alarm sent to member `name` (etcd's apply.go Alarm and the alarm store): GET lists the alarms of a type
 * (all for none); ACTIVATE raises one for a member (answering it, also when already raised); DEACTIVATE clears one
 * (answering it when it was raised).
 */
export function alarm(
  state: EtcdClusterState | undefined,
  name: string,
  req: { action: AlarmAction; memberID: string; alarm?: EtcdAlarmType },
): { state: EtcdClusterState; response: { header: ResponseHeader; alarms: EtcdAlarm[] }; changed: boolean } {
  const me = answeringMember(state, name);
  const s = state!;
  const header = headerOf(s, me);
  const matches = (a: EtcdAlarm) => a.memberID === req.memberID && a.alarm === req.alarm;
  if (req.action === 'GET') {
    const alarms = s.alarms.filter((a) => !req.alarm || a.alarm === req.alarm);
    return { state: s, response: { header, alarms }, changed: false };
  }
  if (!req.alarm) return { state: s, response: { header, alarms: [] }, changed: false };
  const raised: EtcdAlarm = { memberID: req.memberID, alarm: req.alarm };
  if (req.action === 'ACTIVATE') {
    if (s.alarms.some(matches)) return { state: s, response: { header, alarms: [raised] }, changed: false };
    return { state: { ...s, alarms: [...s.alarms, raised] }, response: { header, alarms: [raised] }, changed: true };
  }
  if (!s.alarms.some(matches)) return { state: s, response: { header, alarms: [] }, changed: false };
  const next = { ...s, alarms: s.alarms.filter((a) => !matches(a)) };
  return { state: next, response: { header, alarms: [raised] }, changed: true };
}

function replaceMember(state: EtcdClusterState, member: EtcdMemberRecord): EtcdClusterState {
  return { ...state, members: state.members.map((m) => (m.id === member.id ? member : m)) };
}

function nonZero(randomId: RandomId): string {
  let id = randomId();
  while (id === '0') id = randomId();
  return id;
}

/** A random uint64 in decimal (crypto-strong; IDs only need to be unique). */
export function randomUint64(): string {
  const bytes = new Uint8Array(8);
  globalThis.crypto.getRandomValues(bytes);
  return Buffer.from(bytes).readBigUInt64BE().toString();
}
