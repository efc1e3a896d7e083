import type { ConditionInput, Machine } from '@capi/api';
import { availableCondition, etcdMembersMatchMachines, withHealth, type AvailableInput } from './available';
import { kcp, machine } from './testing/fixtures';

const NOW = new Date('2026-06-01T00:00:00Z');
const LONG_AGO = '2026-05-01T00:00:00Z';
const JUST_NOW = '2026-05-31T23:59:58Z';
const HEALTH = [
  'APIServerPodHealthy',
  'ControllerManagerPodHealthy',
  'SchedulerPodHealthy',
  'EtcdPodHealthy',
  'EtcdMemberHealthy',
];

/** A provisioned control-plane Machine with the health conditions, all True unless overridden. */
function cp(name: string, overrides: Record<string, 'True' | 'False' | 'Unknown'> = {}, since = LONG_AGO): Machine {
  const m = machine(name);
  m.spec.providerID = `inmemory://${name}`;
  m.status = {
    ...m.status,
    conditions: HEALTH.map((type) => ({
      type,
      status: overrides[type] ?? 'True',
      reason: 'R',
      lastTransitionTime: since,
    })),
  };
  return m;
}
const members = (...names: string[]) => names.map((name) => ({ id: name, name, alarms: [] }));

function input(over: Partial<AvailableInput> = {}): AvailableInput {
  const machines = over.machines ?? [cp('a'), cp('b'), cp('c')];
  return {
    kcp: kcp(),
    initialized: true,
    etcdManaged: true,
    etcdMembers: members('a', 'b', 'c'),
    etcdMembersAndMachinesAreMatching: true,
    machines,
    certificatesAvailable: true,
    now: NOW,
    ...over,
  };
}

describe('availableCondition (upstream setAvailableCondition)', () => {
  it('True / Available with no message when everything is healthy', () => {
    expect(availableCondition(input())).toEqual({ type: 'Available', status: 'True', reason: 'Available' });
  });

  it('False until the control plane is initialized', () => {
    expect(availableCondition(input({ initialized: false }))).toEqual({
      type: 'Available',
      status: 'False',
      reason: 'NotAvailable',
      message: 'Control plane not yet initialized',
    });
  });

  it('etcd members not read: Unknown / InspectionFailed, or False while just initialized', () => {
    expect(availableCondition(input({ etcdMembers: undefined }))).toEqual({
      type: 'Available',
      status: 'Unknown',
      reason: 'InspectionFailed',
      message: 'Failed to get etcd members',
    });
    const k = kcp();
    k.status = {
      conditions: [
        { type: 'Initialized', status: 'True', reason: 'Initialized', lastTransitionTime: '2026-05-31T23:59:00Z' },
      ],
    };
    expect(availableCondition(input({ kcp: k, etcdMembers: undefined }))).toMatchObject({
      status: 'False',
      reason: 'NotAvailable',
      message: 'Waiting for etcd to report the list of members',
    });
    // External etcd: members are not needed.
    expect(availableCondition(input({ etcdManaged: false, etcdMembers: undefined }))).toMatchObject({ status: 'True' });
  });

  it('False when the etcd members do not match the Machines', () => {
    expect(availableCondition(input({ etcdMembersAndMachinesAreMatching: false }))).toMatchObject({
      status: 'False',
      reason: 'NotAvailable',
      message: 'The list of etcd members does not match the list of Machines and Nodes',
    });
  });

  it('False without etcd quorum; True with quorum, surfacing the unhealthy member only after 10s', () => {
    const lost = availableCondition(
      input({ machines: [cp('a'), cp('b', { EtcdMemberHealthy: 'False' }), cp('c', { EtcdMemberHealthy: 'False' })] }),
    );
    expect(lost).toEqual({
      type: 'Available',
      status: 'False',
      reason: 'NotAvailable',
      message: '* 1 of 3 etcd members is healthy, at least 2 healthy member required for etcd quorum',
    });
    const none = availableCondition(
      input({
        machines: ['a', 'b', 'c'].map((n) => cp(n, { EtcdMemberHealthy: 'False', APIServerPodHealthy: 'False' })),
      }),
    );
    expect(none.message).toBe(
      '* There are no healthy etcd member, at least 2 healthy member required for etcd quorum\n* There are no Machines with healthy control plane components, at least 1 required',
    );
    const degraded = availableCondition(
      input({ machines: [cp('a'), cp('b'), cp('c', { EtcdMemberHealthy: 'False' })] }),
    );
    expect(degraded).toEqual({
      type: 'Available',
      status: 'True',
      reason: 'Available',
      message:
        '* 2 of 3 etcd members are healthy, at least 2 healthy member required for etcd quorum\n* 2 of 3 Machines have healthy control plane components, at least 1 required',
    });
    // A fresh issue (< 10 s) is not surfaced yet.
    expect(
      availableCondition(input({ machines: [cp('a'), cp('b'), cp('c', { EtcdMemberHealthy: 'False' }, JUST_NOW)] })),
    ).toEqual({ type: 'Available', status: 'True', reason: 'Available' });
  });

  it('external etcd: only the Kubernetes components count', () => {
    const machines = [
      cp('a', { EtcdMemberHealthy: 'False', EtcdPodHealthy: 'False' }),
      cp('b', { SchedulerPodHealthy: 'False' }),
    ];
    expect(availableCondition(input({ etcdManaged: false, machines }))).toEqual({
      type: 'Available',
      status: 'True',
      reason: 'Available',
      message: '* 1 of 2 Machines has healthy control plane components, at least 1 required',
    });
    expect(
      availableCondition(input({ etcdManaged: false, machines: [cp('b', { SchedulerPodHealthy: 'False' })] })),
    ).toMatchObject({
      status: 'False',
      message: '* There are no Machines with healthy control plane components, at least 1 required',
    });
  });

  it('Machines without a providerID do not count; a single provisioning Machine hosts the unmatched member; learners', () => {
    const provisioning = machine('d', { nodeRef: false });
    provisioning.status = {
      conditions: [{ type: 'EtcdMemberHealthy', status: 'True', reason: 'R', lastTransitionTime: LONG_AGO }],
    };
    const r = availableCondition(
      input({ machines: [cp('a'), provisioning], etcdMembers: [...members('a', 'd'), { id: 'x', name: '' }] }),
    );
    expect(r).toEqual({ type: 'Available', status: 'True', reason: 'Available' });
    const twoProvisioning = availableCondition(
      input({
        machines: [
          cp('a', { EtcdMemberHealthy: 'False' }),
          machine('d', { nodeRef: false }),
          machine('e', { nodeRef: false }),
        ],
        etcdMembers: [...members('a', 'd'), { id: 'x', name: '' }],
      }),
    );
    expect(twoProvisioning.message).toBe(
      '* 1 of 3 etcd members is healthy, 1 learner etcd member, at least 2 healthy member required for etcd quorum\n* There are no Machines with healthy control plane components, at least 1 required',
    );
  });

  it('False while deleting or without certificates', () => {
    const k = kcp();
    k.metadata.deletionTimestamp = LONG_AGO;
    expect(availableCondition(input({ kcp: k, certificatesAvailable: false }))).toEqual({
      type: 'Available',
      status: 'False',
      reason: 'NotAvailable',
      message: '* Control plane metadata.deletionTimestamp is set\n* Control plane certificates are not available',
    });
  });
});

describe('etcdMembersMatchMachines (upstream compareMachinesAndMembers)', () => {
  const node = (name: string, creationTimestamp: string) => ({
    name,
    ready: true,
    controlPlane: true,
    creationTimestamp,
  });
  it('matches when every Machine with a Node has a member and every member a Machine', () => {
    expect(etcdMembersMatchMachines([cp('a'), cp('b')], [], members('a', 'b'), NOW)).toBe(true);
  });
  it('a Machine without member counts only once its Node is older than two minutes', () => {
    expect(etcdMembersMatchMachines([cp('a'), cp('b')], [node('b', JUST_NOW)], members('a'), NOW)).toBe(true);
    expect(etcdMembersMatchMachines([cp('a'), cp('b')], [node('b', LONG_AGO)], members('a'), NOW)).toBe(false);
  });
  it('a member without Machine counts unless a Machine is provisioning', () => {
    expect(etcdMembersMatchMachines([cp('a')], [], members('a', 'z'), NOW)).toBe(false);
    expect(etcdMembersMatchMachines([cp('a'), machine('p', { nodeRef: false })], [], members('a', 'z'), NOW)).toBe(
      true,
    );
  });
  it('members not read: a mismatch once a Machine has a Node', () => {
    expect(etcdMembersMatchMachines([machine('p', { nodeRef: false })], [], undefined, NOW)).toBe(true);
    expect(etcdMembersMatchMachines([cp('a')], [], undefined, NOW)).toBe(false);
  });
});

describe('withHealth', () => {
  it('sets the computed conditions, keeping lastTransitionTime when the status is unchanged', () => {
    const m = cp('a');
    const health: ConditionInput[] = [
      { type: 'EtcdMemberHealthy', status: 'True', reason: 'Healthy' },
      { type: 'SchedulerPodHealthy', status: 'False', reason: 'Failed' },
    ];
    const out = withHealth(m, health, NOW);
    expect(out.status?.conditions?.find((c) => c.type === 'EtcdMemberHealthy')).toMatchObject({
      reason: 'Healthy',
      lastTransitionTime: LONG_AGO,
    });
    expect(out.status?.conditions?.find((c) => c.type === 'SchedulerPodHealthy')).toMatchObject({
      status: 'False',
      lastTransitionTime: '2026-06-01T00:00:00Z',
    });
  });
});
