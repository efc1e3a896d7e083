// Upstream kubeadmcontrolplane_controller_test.go TestKubeadmControlPlaneReconciler_reconcileEtcdMembers, every case,
// on decideEtcdMembers (the decision) and reconcileEtcdMembers (its result and the removal, against a fake
// WorkloadCluster recording removeEtcdMember).
import type { Condition, Machine } from '@capi/api';
import { AlarmType, type MemberAlarm } from '@capi/etcd';
import { testReconcileContext } from '@capi/controller-runtime/testing';
import type { ControlPlaneObservation } from './control-plane-view';
import { decideEtcdMembers } from './etcd-members';
import { reconcileEtcdMembers } from './etcd-members-io';
import { machine as fixtureMachine } from './testing/fixtures';
import type { EtcdMember, WorkloadCluster } from './workload-cluster';

const healthyCond = (status: 'True' | 'False'): Condition => ({
  type: 'EtcdMemberHealthy',
  status,
  reason: status === 'True' ? 'Healthy' : 'NotHealthy',
  lastTransitionTime: '2026-01-01T00:00:00Z',
});
/** Upstream m1: nodeRef m1-node, carrying KCP's pre-terminate hook; `etcd` sets its EtcdMemberHealthy. */
function m1(name = 'm1', o: { nodeRef?: string; etcd?: 'True' | 'False' } = {}): Machine {
  const m = fixtureMachine(name, {
    annotations: { 'pre-terminate.delete.hook.machine.cluster.x-k8s.io/kcp-cleanup': '' },
  });
  m.status = { nodeRef: { name: o.nodeRef ?? 'm1-node' } };
  if (o.nodeRef === '') delete m.status.nodeRef;
  if (o.etcd) m.status.conditions = [healthyCond(o.etcd)];
  return m;
}
/** Upstream etcdMembers(machines): a member per Machine with a Node, named after it. */
const etcdMembers = (machines: Machine[]): EtcdMember[] =>
  machines.filter((m) => m.status?.nodeRef?.name).map((m) => ({ id: '0', name: m.status!.nodeRef!.name }));

interface Case {
  name: string;
  external?: boolean;
  machines: Machine[];
  etcdClusterHealthy?: boolean;
  alarms?: MemberAlarm[];
  additional?: EtcdMember[];
  wantErr?: boolean;
  wantRequeueMs?: number;
  wantRemoveCalled?: number;
}

const cases: Case[] = [
  { name: 'No op when external etcd mode', external: true, machines: [] },
  { name: 'No op when no machines', machines: [] },
  { name: 'No op when etcdMember is empty', machines: [m1('machine-without-etcd-member', { nodeRef: '' })] },
  { name: 'No op when etcd cluster health is true', machines: [m1()], etcdClusterHealthy: true },
  {
    name: 'No op when there is at leat one machine provisioning',
    machines: [m1(), m1('machine-provisioning', { nodeRef: '' })],
  },
  {
    name: 'No op when all machines have a corresponding etcd member',
    machines: [m1(), m1('m2', { nodeRef: 'm2-node' })],
  },
  {
    name: 'Remove additional etcd members when the target etcd cluster is healthy',
    machines: [m1('m1', { etcd: 'True' })],
    additional: [{ id: '0', name: 'foo' }],
    wantRequeueMs: 1000,
    wantRemoveCalled: 1,
  },
  {
    name: 'Remove additional etcd members without name when the target etcd cluster is healthy',
    machines: [m1('m1', { etcd: 'True' })],
    additional: [{ id: '0', name: '' }],
    wantRequeueMs: 1000,
    wantRemoveCalled: 1,
  },
  {
    name: 'Remove additional etcd members without name when the target etcd cluster is healthy - 3CP',
    machines: [m1('m1', { etcd: 'True' }), m1('m2', { etcd: 'True' }), m1('m3', { etcd: 'True' })],
    additional: [{ id: '0', name: '' }],
    wantRequeueMs: 1000,
    wantRemoveCalled: 1,
  },
  {
    name: 'Do not remove additional etcd members without name when there are provisioning machines',
    machines: [m1('m1', { nodeRef: '', etcd: 'True' })],
    additional: [{ id: '0', name: '' }],
    wantRemoveCalled: 0,
  },
  {
    name: 'Do not remove additional etcd members when the target etcd cluster is not healthy',
    machines: [m1('m1', { etcd: 'False' })],
    additional: [{ id: '0', name: 'foo' }],
    wantRemoveCalled: 0,
    wantErr: true,
  },
  {
    name: 'Consider alarms from members not being removed when computing target etcd cluster status',
    machines: [m1('m1', { etcd: 'True' })],
    alarms: [{ memberId: '1', type: AlarmType.NoSpace }],
    additional: [
      { id: '1', name: 'foo' },
      { id: '2', name: 'bar' },
    ],
    wantRemoveCalled: 0,
    wantErr: true,
  },
  {
    name: 'Ignore alarms from external members being removed when computing target etcd cluster status',
    machines: [m1('m1', { etcd: 'True' })],
    alarms: [{ memberId: '2', type: AlarmType.Corrupt }],
    additional: [
      { id: '1', name: 'foo' },
      { id: '2', name: 'bar' },
    ],
    wantRequeueMs: 1000,
    wantRemoveCalled: 1,
  },
];

function observation(c: Case, removed: EtcdMember[]): ControlPlaneObservation {
  const workload = {
    removeEtcdMember: (member: EtcdMember) => {
      removed.push(member);
      return Promise.resolve();
    },
  } as unknown as WorkloadCluster;
  return {
    view: c.machines.map((machine) => ({ machine, upToDate: true, eligibleForInPlaceUpdate: true, health: [] })),
    controlPlaneNodeReady: true,
    machineHealth: new Map(),
    kcpHealth: [
      {
        type: 'EtcdClusterHealthy',
        status: c.etcdClusterHealthy ? 'True' : 'False',
        reason: c.etcdClusterHealthy ? 'Healthy' : 'NotHealthy',
      },
    ],
    etcdManaged: !c.external,
    etcdMembers: [...etcdMembers(c.machines), ...(c.additional ?? [])],
    etcdAlarms: c.alarms ?? [],
    workload,
  };
}

describe('reconcileEtcdMembers (upstream TestKubeadmControlPlaneReconciler_reconcileEtcdMembers)', () => {
  it.each(cases)('$name', async (c) => {
    const removed: EtcdMember[] = [];
    const result = reconcileEtcdMembers(observation(c, removed), testReconcileContext().log);
    if (c.wantErr) await expect(result).rejects.toThrow();
    else expect(await result).toEqual(c.wantRequeueMs ? { requeueAfterMs: c.wantRequeueMs } : undefined);
    expect(removed).toHaveLength(c.wantRemoveCalled ?? 0);
  });

  it('(ours) which member, and the errors', async () => {
    const base = { etcdManaged: true, etcdClusterHealthy: false, alarms: [] };
    // Sorted by name: the unnamed member first.
    expect(
      decideEtcdMembers({
        ...base,
        machines: [m1('m1', { etcd: 'True' })],
        members: [
          { id: '0', name: 'm1-node' },
          { id: '5', name: 'zed' },
          { id: '6', name: '' },
        ],
      }),
    ).toMatchObject({ type: 'remove', member: { id: '6' }, memberLabel: '(Name not yet assigned)' });
    expect(
      decideEtcdMembers({
        ...base,
        machines: [m1('m1', { etcd: 'False' })],
        members: [
          { id: '0', name: 'm1-node' },
          { id: '5', name: 'foo' },
        ],
      }),
    ).toEqual({
      type: 'error',
      message:
        'etcd member foo does not have a corresponding Machine, it must be removed from the cluster but this operation can lead to quorum loss. Please check the etcd status',
    });
    expect(
      decideEtcdMembers({ ...base, machines: [m1()], members: [{ id: '0', name: 'foo' }], nodeListError: 'timeout' }),
    ).toEqual({ type: 'error', message: 'unable to reconcile etcd members: timeout' });
    // A refused removal is an error naming the member.
    const c = cases[6];
    const obs = observation(c, []);
    obs.workload = {
      removeEtcdMember: () =>
        Promise.reject(new Error('failed to remove member from etcd: etcdserver: unhealthy cluster')),
    } as unknown as WorkloadCluster;
    await expect(reconcileEtcdMembers(obs, testReconcileContext().log)).rejects.toThrow(
      'failed to remove etcd member foo. Please check the etcd status: failed to remove member from etcd: etcdserver: unhealthy cluster',
    );
  });
});

describe('decideEtcdMembers quorum guard', () => {
  it("the EtcdMemberHealthy computed this reconcile wins over the Machine's own", () => {
    const input = {
      etcdManaged: true,
      etcdClusterHealthy: false,
      machines: [m1('m1', { etcd: 'False' })],
      members: [
        { id: '0', name: 'm1-node' },
        { id: '5', name: 'foo' },
      ],
    };
    expect(decideEtcdMembers(input).type).toBe('error');
    const machineHealth = new Map([
      ['m1', [{ type: 'EtcdMemberHealthy', status: 'True' as const, reason: 'Healthy' }]],
    ]);
    expect(decideEtcdMembers({ ...input, machineHealth }).type).toBe('remove');
  });
});
