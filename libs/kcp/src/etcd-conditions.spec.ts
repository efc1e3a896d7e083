// Upstream controlplane/kubeadm/pkg/workload_cluster_conditions_test.go, the etcd part: TestUpdateEtcdConditions,
// TestUpdateManagedEtcdConditions, TestUpdateExternalEtcdConditions and TestCompareMachinesAndMembers, every case,
// on observeEtcd (which Nodes to ask) + readEtcdMembersAndAlarms (one client: members, leader, alarms) +
// computeControlPlaneHealth (the conditions) / etcdMembersMatchMachines (Available's view of the comparison).
import type { Machine } from '@capi/api';
import { AlarmType, type EtcdClient, type EtcdMember } from '@capi/etcd';
import { fakeEtcdClient, type FakeEtcdOptions } from '@capi/etcd/testing';
import { etcdMembersMatchMachines } from './available';
import { observeEtcd } from './control-plane-view';
import { computeControlPlaneHealth } from './health';
import { kcp as fixtureKcp, machine as fixtureMachine } from './testing/fixtures';
import type { WorkloadNode } from './workload-cluster';
import { readEtcdMembersAndAlarms, type EtcdClientFor } from './workload-etcd';

const NOW = new Date('2026-03-01T12:00:00Z');

/** Upstream fakeMachine(name, withNodeRef(n), withProviderID(p)). */
function fakeMachine(name: string, o: { nodeRef?: string; providerID?: string; deleting?: boolean } = {}): Machine {
  const m = fixtureMachine(name, { nodeRef: false, deleting: o.deleting });
  if (o.nodeRef) m.status = { nodeRef: { name: o.nodeRef } };
  if (o.providerID) m.spec.providerID = o.providerID;
  return m;
}
const fakeNode = (name: string, created = NOW): WorkloadNode => ({
  name,
  ready: true,
  readyStatus: 'True',
  controlPlane: true,
  creationTimestamp: created.toISOString(),
});
const generator = (f: (nodeNames: readonly string[]) => Promise<EtcdClient>) => {
  const calls: string[][] = [];
  const gen: EtcdClientFor = {
    forFirstAvailableNode: (names) => {
      calls.push([...names]);
      return f(names);
    },
  };
  return { gen, calls };
};
const client = (opts: FakeEtcdOptions) => () => fakeEtcdClient(opts);
const failing = (message: string) => () => Promise.reject(new Error(message));
/** A fake generator answering per node as upstream's clientFunc cases: the first node with a client wins. */
const perNode = (clients: Record<string, FakeEtcdOptions>) => async (names: readonly string[]) => {
  const errs: string[] = [];
  for (const n of names) {
    if (clients[n]) return fakeEtcdClient(clients[n]);
    errs.push('no client for this node');
  }
  throw new Error(`could not establish a connection to etcd members hosted on ${names.join(',')}: ${errs[0]}`);
};

async function updateManagedEtcdConditions(
  machines: Machine[],
  nodes: WorkloadNode[] | { error: string },
  gen?: EtcdClientFor,
) {
  const etcd =
    'error' in nodes ? undefined : await observeEtcd((names) => readEtcdMembersAndAlarms(gen!, names), nodes, machines);
  const health = computeControlPlaneHealth({
    machines,
    nodes: 'error' in nodes ? nodes : { value: nodes },
    pods: { value: new Map() },
    etcd,
    etcdManaged: true,
  });
  const read = etcd && 'members' in etcd ? etcd : undefined;
  return {
    machine: (name: string) => health.machines.get(name)?.filter((c) => c.type === 'EtcdMemberHealthy'),
    kcp: health.kcp.find((c) => c.type === 'EtcdClusterHealthy'),
    members: read?.members.map((m) => m.name),
    leader: read?.leader,
    matching: etcdMembersMatchMachines(machines, 'error' in nodes ? undefined : nodes, read?.members, NOW),
  };
}

const healthy = { type: 'EtcdMemberHealthy', status: 'True', reason: 'Healthy' };
const twoMembers = (extra: FakeEtcdOptions['members'] = []): FakeEtcdOptions => ({
  clusterId: '1',
  members: [{ name: 'n1', id: '1' }, { name: 'n2', id: '2' }, ...extra],
  alarms: [],
  leaderId: '1',
});

describe('TestUpdateEtcdConditions (one attempt to connect, whether or not KCP is stable)', () => {
  it.each([
    ['retry retryable errors when KCP is not stable (e.g. scaling up)', failing('fake error')],
    ['do not retry retryable errors when KCP is stable', failing('fake error')],
    [
      'do not retry for other errors when KCP is scaling up',
      client({ clusterId: '1', members: [{ name: 'n1', id: '1' }], alarms: [] }),
    ],
  ])('%s', async (_name, f) => {
    const { gen, calls } = generator(f);
    await updateManagedEtcdConditions([fakeMachine('m1', { nodeRef: 'n1' })], [fakeNode('n1')], gen);
    expect(calls).toEqual([['n1']]);
  });
});

describe('TestUpdateManagedEtcdConditions', () => {
  it('if list nodes return an error should report all the conditions Unknown', async () => {
    const r = await updateManagedEtcdConditions([fakeMachine('m1')], { error: 'something went wrong' });
    expect(r.kcp).toEqual({
      type: 'EtcdClusterHealthy',
      status: 'Unknown',
      reason: 'InspectionFailed',
      message: 'Failed to get Nodes hosting the etcd cluster',
    });
    expect(r.machine('m1')).toEqual([
      {
        type: 'EtcdMemberHealthy',
        status: 'Unknown',
        reason: 'InspectionFailed',
        message: 'Failed to get the Node hosting the etcd member',
      },
    ]);
    expect(r.matching).toBe(true); // upstream: false; ours: no Machine has a Node, nothing to compare yet
    expect(r.leader).toBeUndefined();
  });

  it.each([
    ['without providerID', 'n1'],
    ['with providerID', 'dummy-provider-id'],
  ])(
    'If there are provisioning machines, a node without machine should be ignored in v1beta1, reported in v1beta2 (%s)',
    async (_n, providerID) => {
      const r = await updateManagedEtcdConditions([fakeMachine('m1', { providerID })], [fakeNode('n1')]);
      const message = `Waiting for a Node with spec.providerID ${providerID} to exist`;
      expect(r.kcp).toEqual({
        type: 'EtcdClusterHealthy',
        status: 'Unknown',
        reason: 'HealthUnknown',
        message: `* Machine m1:\n  * EtcdMemberHealthy: ${message}`,
      });
      expect(r.machine('m1')).toEqual([
        { type: 'EtcdMemberHealthy', status: 'Unknown', reason: 'InspectionFailed', message },
      ]);
      expect(r.matching).toBe(true);
      expect(r.leader).toBeUndefined();
      expect(r.members).toBeUndefined();
    },
  );

  it('failure creating the etcd client should report unknown condition', async () => {
    const { gen } = generator(failing('something went wrong'));
    const r = await updateManagedEtcdConditions(
      [fakeMachine('m1', { providerID: 'n1', nodeRef: 'n1' })],
      [fakeNode('n1')],
      gen,
    );
    expect(r.kcp).toEqual({
      type: 'EtcdClusterHealthy',
      status: 'Unknown',
      reason: 'HealthUnknown',
      message: '* Machine m1:\n  * EtcdMemberHealthy: Failed to connect to etcd: something went wrong',
    });
    expect(r.machine('m1')).toEqual([
      {
        type: 'EtcdMemberHealthy',
        status: 'Unknown',
        reason: 'InspectionFailed',
        message: 'Failed to connect to etcd: something went wrong',
      },
    ]);
    expect(r.matching).toBe(false);
    expect(r.leader).toBeUndefined();
  });

  it('failure listing members should report false condition in v1beta1, unknown in v1beta2', async () => {
    const { gen } = generator(client({ memberListError: new Error('something went wrong') }));
    const r = await updateManagedEtcdConditions(
      [fakeMachine('m1', { providerID: 'n1', nodeRef: 'n1' })],
      [fakeNode('n1')],
      gen,
    );
    expect(r.kcp).toEqual({
      type: 'EtcdClusterHealthy',
      status: 'Unknown',
      reason: 'HealthUnknown',
      message: '* Machine m1:\n  * EtcdMemberHealthy: Failed to get etcd members: something went wrong',
    });
    expect(r.machine('m1')).toEqual([
      {
        type: 'EtcdMemberHealthy',
        status: 'Unknown',
        reason: 'InspectionFailed',
        message: 'Failed to get etcd members: something went wrong',
      },
    ]);
    expect(r.matching).toBe(false);
    expect(r.leader).toBeUndefined();
  });

  it('an etcd member in learner mode should be reported', async () => {
    const { gen } = generator(
      client({ members: [{ name: 'n1', id: '1', isLearner: true }], alarms: [], leaderId: '1' }),
    );
    const r = await updateManagedEtcdConditions([fakeMachine('m1', { nodeRef: 'n1' })], [fakeNode('n1')], gen);
    const message = 'Waiting for learner etcd member to be promoted';
    expect(r.kcp).toEqual({
      type: 'EtcdClusterHealthy',
      status: 'False',
      reason: 'NotHealthy',
      message: `* Machine m1:\n  * EtcdMemberHealthy: ${message}`,
    });
    expect(r.machine('m1')).toEqual([{ type: 'EtcdMemberHealthy', status: 'False', reason: 'NotHealthy', message }]);
    expect(r.members).toEqual(['n1']);
    expect(r.matching).toBe(true);
    expect(r.leader).toMatchObject({ id: '1', name: 'n1', isLearner: true });
  });

  it('an etcd member with alarms should report false condition', async () => {
    const { gen } = generator(
      client({
        members: [{ name: 'n1', id: '1' }],
        alarms: [{ memberId: '1', type: AlarmType.NoSpace }],
        leaderId: '1',
      }),
    );
    const r = await updateManagedEtcdConditions([fakeMachine('m1', { nodeRef: 'n1' })], [fakeNode('n1')], gen);
    expect(r.kcp).toEqual({
      type: 'EtcdClusterHealthy',
      status: 'False',
      reason: 'NotHealthy',
      message: '* Machine m1:\n  * EtcdMemberHealthy: Etcd reports alarms: NOSPACE',
    });
    expect(r.machine('m1')).toEqual([
      { type: 'EtcdMemberHealthy', status: 'False', reason: 'NotHealthy', message: 'Etcd reports alarms: NOSPACE' },
    ]);
    expect(r.members).toEqual(['n1']);
    expect(r.matching).toBe(true);
    expect(r.leader).toMatchObject({ id: '1', name: 'n1' });
  });

  it('a machine without a member should report false condition', async () => {
    const { gen } = generator(
      perNode({ n1: { clusterId: '1', members: [{ name: 'n1', id: '1' }], alarms: [], leaderId: '1' } }),
    );
    const nodes = [
      fakeNode('n1', new Date(NOW.getTime() - 10 * 60_000)),
      fakeNode('n2', new Date(NOW.getTime() - 10 * 60_000)),
    ];
    const r = await updateManagedEtcdConditions(
      [fakeMachine('m1', { nodeRef: 'n1' }), fakeMachine('m2', { nodeRef: 'n2' })],
      nodes,
      gen,
    );
    expect(r.kcp).toEqual({
      type: 'EtcdClusterHealthy',
      status: 'False',
      reason: 'NotHealthy',
      message: "* Machine m2:\n  * EtcdMemberHealthy: Etcd doesn't have an etcd member for Node n2",
    });
    expect(r.machine('m1')).toEqual([healthy]);
    expect(r.machine('m2')).toEqual([
      {
        type: 'EtcdMemberHealthy',
        status: 'False',
        reason: 'NotHealthy',
        message: "Etcd doesn't have an etcd member for Node n2",
      },
    ]);
    expect(r.members).toEqual(['n1']);
    expect(r.matching).toBe(false);
    expect(r.leader).toEqual({ clusterId: '1', id: '1', name: 'n1', peerURLs: [], clientURLs: [], isLearner: false });
  });

  it('healthy etcd members should report true', async () => {
    const { gen } = generator(perNode({ n1: twoMembers(), n2: twoMembers() }));
    const r = await updateManagedEtcdConditions(
      [fakeMachine('m1', { nodeRef: 'n1' }), fakeMachine('m2', { nodeRef: 'n2' })],
      [fakeNode('n1'), fakeNode('n2')],
      gen,
    );
    expect(r.kcp).toEqual({ type: 'EtcdClusterHealthy', status: 'True', reason: 'Healthy' });
    expect(r.machine('m1')).toEqual([healthy]);
    expect(r.machine('m2')).toEqual([healthy]);
    expect(r.members).toEqual(['n1', 'n2']);
    expect(r.matching).toBe(true);
    expect(r.leader).toMatchObject({ clusterId: '1', id: '1', name: 'n1' });
  });

  it('etcd members without a name when there are no provisioning machines should be reported', async () => {
    const withUnnamed = twoMembers([{ name: '', id: '3' }]);
    const { gen } = generator(perNode({ n1: withUnnamed, n2: withUnnamed }));
    const r = await updateManagedEtcdConditions(
      [fakeMachine('m1', { nodeRef: 'n1' }), fakeMachine('m2', { nodeRef: 'n2' })],
      [fakeNode('n1'), fakeNode('n2')],
      gen,
    );
    expect(r.kcp).toEqual({
      type: 'EtcdClusterHealthy',
      status: 'False',
      reason: 'NotHealthy',
      message: '* Etcd member 3 (Name not yet assigned) does not have a corresponding Machine',
    });
    expect(r.machine('m1')).toEqual([healthy]);
    expect(r.machine('m2')).toEqual([healthy]);
    expect(r.members).toEqual(['n1', 'n2', '']);
    expect(r.matching).toBe(false);
    expect(r.leader).toMatchObject({ clusterId: '1', id: '1', name: 'n1' });
  });

  it('(ours) the leader not among the members: an error, the Machines keep their condition', async () => {
    const { gen } = generator(client({ members: [{ name: 'n1', id: '1' }], leaderId: '9' }));
    const m1 = fakeMachine('m1', { nodeRef: 'n1' });
    m1.status!.conditions = [
      { type: 'EtcdMemberHealthy', status: 'True', reason: 'Healthy', lastTransitionTime: NOW.toISOString() },
    ];
    const r = await updateManagedEtcdConditions([m1], [fakeNode('n1')], gen);
    expect(r.machine('m1')).toEqual([healthy]);
    expect(r.leader).toBeUndefined();
  });

  it('(ours) Nodes are asked last-known-healthy first', async () => {
    const { gen, calls } = generator(perNode({ n1: twoMembers() }));
    const m1 = fakeMachine('m1', { nodeRef: 'n1' });
    const m2 = fakeMachine('m2', { nodeRef: 'n2' });
    m2.status!.conditions = [
      { type: 'EtcdMemberHealthy', status: 'True', reason: 'Healthy', lastTransitionTime: NOW.toISOString() },
    ];
    await updateManagedEtcdConditions(
      [m1, m2, fakeMachine('m3', { nodeRef: 'n3', deleting: true })],
      [fakeNode('n1'), fakeNode('n2'), fakeNode('n3'), fakeNode('x')],
      gen,
    );
    expect(calls).toEqual([['n2', 'n1']]);
  });
});

describe('TestUpdateExternalEtcdConditions', () => {
  it('External etcd should set a condition at KCP level for v1beta1, not for v1beta2', () => {
    const h = computeControlPlaneHealth({
      machines: [],
      nodes: { value: [] },
      pods: { value: new Map() },
      etcdManaged: false,
    });
    expect(h.kcp.find((c) => c.type === 'EtcdClusterHealthy')).toBeUndefined();
    expect(fixtureKcp().spec.kubeadmConfigSpec).toBeDefined();
  });
});

describe('TestCompareMachinesAndMembers', () => {
  const m = (name: string, nodeRef = true) => fakeMachine(name, nodeRef ? { nodeRef: name } : {});
  const members = (...names: string[]): EtcdMember[] =>
    names.map((name) => ({ clusterId: '1', id: '0', name, peerURLs: [], clientURLs: [], isLearner: false }));
  const kcpErrors = (machines: Machine[], ms: EtcdMember[] | undefined) => {
    const h = computeControlPlaneHealth({
      machines,
      nodes: { value: [] },
      pods: { value: new Map() },
      etcd: ms ? { members: ms, leader: ms[0], alarms: [] } : undefined,
      etcdManaged: true,
    });
    const message = h.kcp.find((c) => c.type === 'EtcdClusterHealthy')?.message ?? '';
    return message
      .split('\n')
      .filter((l) => l.startsWith('* Etcd member'))
      .map((l) => l.slice(2));
  };
  const ago = (ms: number) => new Date(NOW.getTime() - ms);
  const cases: [string, Machine[], EtcdMember[] | undefined, WorkloadNode[], boolean, string[]][] = [
    [
      'true if the list of members is empty and there are no provisioned machines',
      [m('m1', false)],
      undefined,
      [],
      true,
      [],
    ],
    ['false if the list of members is empty and there are provisioned machines', [m('m1')], undefined, [], false, []],
    ['true if the list of members match machines', [m('m1'), m('m2')], members('m1', 'm2'), [], true, []],
    [
      'true if there is a machine without a member but at least a machine is still provisioning (node without a name)',
      [m('m1'), m('m2'), m('m3', false)],
      members('m1', 'm2', ''),
      [],
      true,
      ['Etcd member 0 (Name not yet assigned) does not have a corresponding Machine'],
    ],
    [
      'true if there is a machine without a member but at least a machine is still provisioning',
      [m('m1'), m('m2'), m('m3', false)],
      members('m1', 'm2'),
      [],
      true,
      [],
    ],
    [
      'true if there is a machine without a member but node on this machine does not exist yet',
      [m('m1'), m('m2'), m('m3')],
      members('m1', 'm2'),
      [],
      true,
      [],
    ],
    [
      'true if there is a machine without a member but node on this machine has been just created',
      [m('m1'), m('m2'), m('m3')],
      members('m1', 'm2'),
      [fakeNode('m3', ago(110_000))],
      true,
      [],
    ],
    [
      'false if there is a machine without a member and node on this machine is old',
      [m('m1'), m('m2'), m('m3')],
      members('m1', 'm2'),
      [fakeNode('m3', ago(10 * 60_000))],
      false,
      [],
    ],
    [
      'false if there is a member without a machine',
      [m('m1')],
      members('m1', 'm2'),
      [],
      false,
      ['Etcd member m2 does not have a corresponding Machine'],
    ],
    [
      'true if there is a member without a machine while a machine is still provisioning ',
      [m('m1'), m('m2', false)],
      members('m1', 'm2'),
      [],
      true,
      ['Etcd member m2 does not have a corresponding Machine'],
    ],
  ];
  it.each(cases)('%s', (_name, machines, ms, nodes, matching, errors) => {
    expect(etcdMembersMatchMachines(machines, nodes, ms, NOW)).toBe(matching);
    expect(kcpErrors(machines, ms)).toEqual(errors);
  });
});
