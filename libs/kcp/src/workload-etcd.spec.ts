// Upstream controlplane/kubeadm/pkg/workload_cluster_etcd_test.go TestRemoveEtcdMember and TestForwardEtcdLeadership,
// every case, over FakeEtcdApi (upstream etcd/fake) behind a fake client generator.
import { EtcdClient } from '@capi/etcd';
import { FakeEtcdApi, type FakeEtcdOptions } from '@capi/etcd/testing';
import { forwardEtcdLeadership, removeEtcdMember, type EtcdClientFor } from './workload-etcd';

/** Upstream fakeEtcdClientGenerator: a client over `fake` (or an error); the Nodes asked are recorded. */
function fakeGenerator(fake: FakeEtcdApi | Error) {
  const asked: string[][] = [];
  const gen: EtcdClientFor = {
    forFirstAvailableNode: (names) => {
      asked.push([...names]);
      return fake instanceof Error ? Promise.reject(fake) : EtcdClient.create(fake);
    },
  };
  return { gen, asked };
}
const api = (opts: FakeEtcdOptions) => new FakeEtcdApi(opts);

describe('TestRemoveEtcdMember', () => {
  const cases: [string, { id: string; name: string }, FakeEtcdApi | Error, boolean][] = [
    ['returns an error if it fails to create the etcd client', { id: '1', name: 'cp1' }, new Error('no client'), true],
    [
      'returns an error if the client errors getting etcd members',
      { id: '1', name: 'cp1' },
      api({ memberListError: new Error('cannot get etcd members') }),
      true,
    ],
    [
      'no op if the member already does not exist',
      { id: '2', name: 'cp2' },
      api({ members: [{ name: 'cp1', id: '1' }] }),
      false,
    ],
    [
      'returns an error if there is only one member',
      { id: '1', name: 'cp1' },
      api({ members: [{ name: 'cp1', id: '1' }] }),
      true,
    ],
    [
      'returns an error if the client errors removing the etcd member',
      { id: '1', name: 'cp1' },
      api({
        members: [
          { name: 'cp1', id: '1' },
          { name: 'cp2', id: '2' },
        ],
        memberRemoveError: new Error('cannot remove etcd members'),
      }),
      true,
    ],
    [
      'removes the member from etcd',
      { id: '1', name: 'cp1' },
      api({
        members: [
          { name: 'cp1', id: '1' },
          { name: 'cp2', id: '2' },
        ],
      }),
      false,
    ],
  ];
  it.each(cases)('%s', async (_name, member, fake, expectErr) => {
    const { gen } = fakeGenerator(fake);
    const result = removeEtcdMember(gen, member, ['cp1', 'cp2']);
    if (expectErr) await expect(result).rejects.toThrow();
    else await expect(result).resolves.toBeUndefined();
    if (fake instanceof FakeEtcdApi) expect(fake.closed).toBe(true);
  });

  it('(ours) the messages, the Node of the member left out, removal by id and by name', async () => {
    const two = () =>
      api({
        members: [
          { name: 'cp1', id: '1' },
          { name: 'cp2', id: '2' },
        ],
      });
    const { gen: noClient } = fakeGenerator(new Error('no client'));
    await expect(removeEtcdMember(noClient, { id: '1', name: 'cp1' }, ['cp1'])).rejects.toThrow(
      'failed to create etcd client: no client',
    );
    const last = fakeGenerator(api({ members: [{ name: 'cp1', id: '1' }] }));
    await expect(removeEtcdMember(last.gen, { id: '1', name: 'cp1' }, ['cp1', 'cp2'])).rejects.toThrow(
      'cannot remove the last etcd member in the cluster',
    );
    const byId = two();
    const g = fakeGenerator(byId);
    await removeEtcdMember(g.gen, { id: '1', name: 'cp1' }, ['cp1', 'cp2', 'cp3']);
    expect(g.asked).toEqual([['cp2', 'cp3']]);
    expect(byId.removedMember).toBe('1');
    const byName = two();
    await removeEtcdMember(fakeGenerator(byName).gen, { name: 'cp2' }, ['cp1', 'cp2']);
    expect(byName.removedMember).toBe('2');
    const refused = api({
      members: [
        { name: 'cp1', id: '1' },
        { name: 'cp2', id: '2' },
      ],
      memberRemoveError: new Error('etcdserver: unhealthy cluster'),
    });
    await expect(
      removeEtcdMember(fakeGenerator(refused).gen, { id: '1', name: 'cp1' }, ['cp1', 'cp2']),
    ).rejects.toThrow(
      'failed to remove member from etcd: failed to remove etcd member: 1: etcdserver: unhealthy cluster',
    );
  });
});

describe('TestForwardEtcdLeadership', () => {
  const members = [
    { name: 'm1', id: '1' },
    { name: 'm2', id: '2' },
  ];
  describe('handles errors correctly', () => {
    const cases: [string, FakeEtcdApi | Error][] = [
      ["returns an error if it can't create an etcd client", new Error('no etcdClient')],
      ['returns error if it fails to get etcd members', api({ memberListError: new Error('cannot get etcd members') })],
      [
        'returns an error if it fails to move leadership',
        api({ members, moveLeaderError: new Error('cannot move leadership'), leaderId: '1' }),
      ],
    ];
    it.each(cases)('%s', async (_name, fake) => {
      await expect(forwardEtcdLeadership(fakeGenerator(fake).gen, 'm1', 'm2')).rejects.toThrow();
    });
  });

  it('does nothing if the machine is not the leader', async () => {
    const fake = api({ members, leaderId: '2' });
    await forwardEtcdLeadership(fakeGenerator(fake).gen, 'm1', 'm2');
    expect(fake.movedLeader).toBeUndefined();
  });

  it('move etcd leader', async () => {
    const fake = api({ members, leaderId: '1' });
    const g = fakeGenerator(fake);
    await forwardEtcdLeadership(g.gen, 'm1', 'm2');
    expect(fake.movedLeader).toBe('2');
    // Connected to the member handing over (MoveLeader must be called on the leader).
    expect(g.asked).toEqual([['m1']]);
  });

  it('(ours) an unknown candidate is an error naming it', async () => {
    await expect(forwardEtcdLeadership(fakeGenerator(api({ members, leaderId: '1' })).gen, 'm1', 'm9')).rejects.toThrow(
      'failed to get etcd member for leader candidate "m9"',
    );
  });
});
