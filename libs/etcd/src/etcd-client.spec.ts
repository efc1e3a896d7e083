// Upstream controlplane/kubeadm/pkg/etcd/etcd_test.go and pkg/etcd/util (the helpers' behaviour).
import { EtcdClient, memberEqual, memberNames, type EtcdMember } from './etcd-client';
import { FakeEtcdApi } from './testing';

const member = (name: string, id = '1'): EtcdMember => ({
  clusterId: '9',
  id,
  name,
  peerURLs: [],
  clientURLs: [],
  isLearner: false,
});

describe('EtcdClient (upstream etcd_test.go)', () => {
  const members = [{ id: '1234', name: 'foo', peerURLs: ['https://1.2.3.4:2000'] }];

  it('TestEtcdMembers_WithErrors: every call reports its failure', async () => {
    const fake = new FakeEtcdApi({
      endpoints: ['https://etcd-instance:2379'],
      members,
      memberListError: new Error('something went wrong'),
      moveLeaderError: new Error('something went wrong'),
      memberRemoveError: new Error('something went wrong'),
    });
    const client = await EtcdClient.create(fake);
    await expect(client.members()).rejects.toThrow('failed to get etcd members: something went wrong');
    await expect(client.moveLeader('1')).rejects.toThrow('failed to move etcd leader to: 1: something went wrong');
    await expect(client.removeMember('1234')).rejects.toThrow(
      'failed to remove etcd member: 1234: something went wrong',
    );
  });

  it('TestEtcdMembers_WithSuccess', async () => {
    const fake = new FakeEtcdApi({ endpoints: ['https://etcd-instance:2379'], members, clusterId: '77' });
    const client = await EtcdClient.create(fake);
    expect(client.endpoint).toBe('https://etcd-instance:2379');
    expect(await client.members()).toEqual([
      {
        clusterId: '77',
        id: '1234',
        name: 'foo',
        peerURLs: ['https://1.2.3.4:2000'],
        clientURLs: [],
        isLearner: false,
      },
    ]);
    await client.moveLeader('1');
    expect(fake.movedLeader).toBe('1');
    await client.removeMember('1234');
    expect(fake.removedMember).toBe('1234');
    expect(await client.alarms()).toEqual([]);
  });

  it('newEtcdClient: no endpoint, or a failing status, is an error; the leader comes from the status', async () => {
    await expect(EtcdClient.create(new FakeEtcdApi({ endpoints: [] }))).rejects.toThrow(
      'invalid argument: newEtcdClient cannot be called without any endpoint',
    );
    await expect(EtcdClient.create(new FakeEtcdApi({ statusError: new Error('boom') }))).rejects.toThrow(
      'failed to get etcd status: boom',
    );
    expect((await EtcdClient.create(new FakeEtcdApi({ leaderId: '18446744073709551615' }))).leaderId).toBe(
      '18446744073709551615',
    );
  });

  it('a call that outlives the call timeout fails with "call timeout expired"', async () => {
    const fake = new FakeEtcdApi();
    fake.memberList = () => new Promise(() => undefined);
    const client = await EtcdClient.create(fake, 50);
    await expect(client.members()).rejects.toThrow('failed to get etcd members: call timeout expired');
  });
});

describe('member helpers (upstream pkg/etcd/util)', () => {
  it('memberNames names a member without a name by its id; memberEqual compares the sets of names', () => {
    expect(memberNames([member('a'), member('', '42')])).toEqual(['a', 'name not set yet for member with id 42']);
    expect(memberEqual([member('a'), member('b')], [member('b'), member('a')])).toBe(true);
    expect(memberEqual([member('a')], [member('a'), member('b')])).toBe(false);
    expect(memberEqual([member('', '1')], [member('', '2')])).toBe(false);
  });
});
