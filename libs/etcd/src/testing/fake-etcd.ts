// A fake etcd API (upstream controlplane/kubeadm/pkg/etcd/fake/client.go): canned responses and errors per call, and
// what was moved / removed.
import { EtcdClient, type EtcdApi, type EtcdMember, type MemberAlarm } from '../etcd-client';

export interface FakeEtcdOptions {
  endpoints?: string[];
  /** Members as MemberList returns them (clusterId comes from `clusterId`). */
  members?: Partial<Omit<EtcdMember, 'clusterId'>>[];
  clusterId?: string;
  alarms?: MemberAlarm[];
  /** The leader id Status reports (becomes the client's leaderId). */
  leaderId?: string;
  statusError?: Error;
  memberListError?: Error;
  memberRemoveError?: Error;
  moveLeaderError?: Error;
  alarmError?: Error;
}

export class FakeEtcdApi implements EtcdApi {
  readonly endpoints: string[];
  movedLeader?: string;
  removedMember?: string;
  closed = false;

  constructor(readonly opts: FakeEtcdOptions = {}) {
    this.endpoints = opts.endpoints ?? ['etcd-test'];
  }

  status() {
    if (this.opts.statusError) return Promise.reject(this.opts.statusError);
    return Promise.resolve({ leader: this.opts.leaderId ?? '0', memberId: this.opts.leaderId ?? '0' });
  }

  memberList() {
    if (this.opts.memberListError) return Promise.reject(this.opts.memberListError);
    return Promise.resolve({
      clusterId: this.opts.clusterId ?? '0',
      members: (this.opts.members ?? []).map((m) => ({
        id: m.id ?? '0',
        name: m.name ?? '',
        peerURLs: m.peerURLs ?? [],
        clientURLs: m.clientURLs ?? [],
        isLearner: m.isLearner ?? false,
      })),
    });
  }

  memberRemove(id: string) {
    this.removedMember = id;
    return this.opts.memberRemoveError ? Promise.reject(this.opts.memberRemoveError) : Promise.resolve();
  }

  moveLeader(id: string) {
    this.movedLeader = id;
    return this.opts.moveLeaderError ? Promise.reject(this.opts.moveLeaderError) : Promise.resolve();
  }

  alarmList() {
    return this.opts.alarmError ? Promise.reject(this.opts.alarmError) : Promise.resolve(this.opts.alarms ?? []);
  }

  close() {
    this.closed = true;
  }
}

/** An EtcdClient over a FakeEtcdApi (its leaderId is the fake's). */
export const fakeEtcdClient = (opts: FakeEtcdOptions = {}): Promise<EtcdClient> =>
  EtcdClient.create(new FakeEtcdApi(opts));
