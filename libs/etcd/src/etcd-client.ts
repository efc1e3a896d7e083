// The etcd client KCP uses (upstream controlplane/kubeadm/pkg/etcd/etcd.go): one member's endpoint, the leader it
// reported when connected, members, alarms, moving the leader and removing a member, every call bounded by the call
// timeout. 64-bit etcd ids are decimal strings so they stay exact.
import { wrapError } from './errors';

/** Upstream DefaultCallTimeout: the longest a read or write to etcd may take. */
export const DEFAULT_CALL_TIMEOUT_MS = 15_000;
/** Upstream's --etcd-dial-timeout-duration default (controlplane/kubeadm/main.go). */
export const DEFAULT_DIAL_TIMEOUT_MS = 10_000;

/** etcd alarm types (etcdserverpb.AlarmType). */
export enum AlarmType {
  None = 0,
  NoSpace = 1,
  Corrupt = 2,
}

/** Upstream AlarmTypeName. */
export const ALARM_TYPE_NAME: Readonly<Record<AlarmType, string>> = {
  [AlarmType.None]: 'NONE',
  [AlarmType.NoSpace]: 'NOSPACE',
  [AlarmType.Corrupt]: 'CORRUPT',
};

/** An etcd member (upstream etcd.Member). */
export interface EtcdMember {
  /** The cluster the member belongs to (from the MemberList response header). */
  clusterId: string;
  id: string;
  /** Empty while the member has not started. */
  name: string;
  peerURLs: string[];
  /** Empty while the member has not started. */
  clientURLs: string[];
  isLearner: boolean;
}

/** An alarm raised on a member (upstream etcd.MemberAlarm). */
export interface MemberAlarm {
  memberId: string;
  type: AlarmType;
}

/** A call's bounds: an absolute deadline (ms since the epoch). */
export interface CallOptions {
  deadline: number;
}

/**
 * The etcd API the client wraps (upstream's `etcd` interface over clientv3): implemented over gRPC by grpcEtcdApi,
 * and by fakes in tests.
 */
export interface EtcdApi {
  readonly endpoints: readonly string[];
  status(endpoint: string, opts: CallOptions): Promise<{ leader: string; memberId: string }>;
  memberList(opts: CallOptions): Promise<{ clusterId: string; members: Omit<EtcdMember, 'clusterId'>[] }>;
  memberRemove(id: string, opts: CallOptions): Promise<void>;
  moveLeader(id: string, opts: CallOptions): Promise<void>;
  alarmList(opts: CallOptions): Promise<MemberAlarm[]>;
  close(): void | Promise<void>;
}

/** Rejects with "call timeout expired" when `work` outlives the deadline (upstream context.WithTimeoutCause). */
async function withCallTimeout<T>(timeoutMs: number, work: (opts: CallOptions) => Promise<T>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('call timeout expired')), timeoutMs);
    timer.unref();
  });
  try {
    return await Promise.race([work({ deadline }), expired]);
  } finally {
    clearTimeout(timer);
  }
}

export class EtcdClient {
  private constructor(
    readonly api: EtcdApi,
    /** The endpoint the client talks to (the etcd Pod name, e.g. etcd-<node>). */
    readonly endpoint: string,
    /** The leader's member id as reported by the endpoint when the client connected. */
    readonly leaderId: string,
    readonly callTimeoutMs: number,
  ) {}

  /**
   * A client over `api`, after asking its endpoint for its status (upstream newEtcdClient): the leader id comes from
   * there. Status errors are for humans only; KCP relies on alarms.
   */
  static async create(api: EtcdApi, callTimeoutMs = DEFAULT_CALL_TIMEOUT_MS): Promise<EtcdClient> {
    const endpoint = api.endpoints[0];
    if (endpoint === undefined)
      throw new Error('invalid argument: newEtcdClient cannot be called without any endpoint');
    try {
      const status = await withCallTimeout(callTimeoutMs, (o) => api.status(endpoint, o));
      return new EtcdClient(api, endpoint, status.leader, callTimeoutMs);
    } catch (e) {
      throw wrapError(e, 'failed to get etcd status');
    }
  }

  close(): void | Promise<void> {
    return this.api.close();
  }

  async members(): Promise<EtcdMember[]> {
    try {
      const res = await withCallTimeout(this.callTimeoutMs, (o) => this.api.memberList(o));
      return res.members.map((m) => ({ ...m, clusterId: res.clusterId }));
    } catch (e) {
      throw wrapError(e, 'failed to get etcd members');
    }
  }

  async moveLeader(newLeaderId: string): Promise<void> {
    try {
      await withCallTimeout(this.callTimeoutMs, (o) => this.api.moveLeader(newLeaderId, o));
    } catch (e) {
      throw wrapError(e, `failed to move etcd leader to: ${newLeaderId}`);
    }
  }

  async removeMember(id: string): Promise<void> {
    try {
      await withCallTimeout(this.callTimeoutMs, (o) => this.api.memberRemove(id, o));
    } catch (e) {
      throw wrapError(e, `failed to remove etcd member: ${id}`);
    }
  }

  async alarms(): Promise<MemberAlarm[]> {
    try {
      return await withCallTimeout(this.callTimeoutMs, (o) => this.api.alarmList(o));
    } catch (e) {
      throw wrapError(e, 'failed to get etcd alarms');
    }
  }
}

/** Upstream etcd/util: the member with the name, or the id. */
export const memberForName = (members: readonly EtcdMember[], name: string): EtcdMember | undefined =>
  members.find((m) => m.name === name);
export const memberForId = (members: readonly EtcdMember[], id: string): EtcdMember | undefined =>
  members.find((m) => m.id === id);

/** Upstream MemberNames: a member without a name yet is named by its id. */
export const memberNames = (members: readonly EtcdMember[]): string[] =>
  members.map((m) => (m.name === '' ? `name not set yet for member with id ${m.id}` : m.name));

/** Upstream MemberEqual: the same set of names. */
export function memberEqual(a: readonly EtcdMember[], b: readonly EtcdMember[]): boolean {
  const x = new Set(memberNames(a));
  const y = new Set(memberNames(b));
  return x.size === y.size && [...x].every((n) => y.has(n));
}
