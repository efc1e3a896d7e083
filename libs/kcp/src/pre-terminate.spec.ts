// Cases of upstream controlplane/kubeadm/reconcilers/kubeadmcontrolplane/kubeadmcontrolplane_controller_test.go:
// TestKubeadmControlPlaneReconciler_reconcilePreTerminateHook (every case: the decision, then the writes it makes
// through a recording client and workload cluster), TestKubeadmControlPlaneReconciler_forwardLeaderShip,
// TestKubeadmControlPlaneReconciler_machineHasOtherPreTerminateHooks.
import type { Condition, KubeadmControlPlane, Machine } from '@capi/api';
import type { Client, ReconcileLogger } from '@capi/controller-runtime';
import {
  DELETE_REQUEUE_AFTER_MS,
  decidePreTerminateHook,
  getCandidatesForEtcdLeadership,
  machineHasOtherPreTerminateHooks,
} from './pre-terminate';
import { isEtcdManaged } from './health';
import { forwardEtcdLeadership, reconcilePreTerminateHook } from './pre-terminate-io';
import { CLUSTER, kcp as kcpFixture, machine as machineFixture, NS } from './testing/fixtures';
import type { EtcdMember, WorkloadCluster, WorkloadClusterProvider } from './workload-cluster';

const HOOK = 'pre-terminate.delete.hook.machine.cluster.x-k8s.io/kcp-cleanup';
const OTHER_HOOK = 'pre-terminate.delete.hook.machine.cluster.x-k8s.io/test';
const NOW = Date.parse('2026-01-02T00:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();

const cond = (type: string, status: 'True' | 'False', reason = 'R'): Condition => ({
  type,
  status,
  reason,
  lastTransitionTime: '2026-01-01T00:00:00Z',
});
const K8S_HEALTHY = ['APIServerPodHealthy', 'ControllerManagerPodHealthy', 'SchedulerPodHealthy', 'EtcdPodHealthy'].map(
  (t) => cond(t, 'True'),
);
const ETCD_HEALTHY = cond('EtcdMemberHealthy', 'True');
const WAITING = cond('Deleting', 'True', 'WaitingForPreTerminateHook');

function m(
  name: string,
  o: { node?: string; hooks?: string[]; deletedAt?: number; conditions?: Condition[]; created?: number } = {},
): Machine {
  const x = machineFixture(name, { annotations: Object.fromEntries((o.hooks ?? []).map((h) => [h, ''])) });
  x.status = {
    ...(o.node === '' ? {} : { nodeRef: { name: o.node ?? `${name}-node` } }),
    conditions: o.conditions ?? [],
  };
  if (o.deletedAt !== undefined) x.metadata.deletionTimestamp = iso(o.deletedAt);
  if (o.created !== undefined) x.metadata.creationTimestamp = iso(o.created);
  if (!o.hooks) delete x.metadata.annotations;
  return x;
}

/** upstream's fixtures */
const machine = () => m('machine', { hooks: [HOOK], conditions: [...K8S_HEALTHY, ETCD_HEALTHY] });
const deletingMachine = () => m('deleting-machine', { deletedAt: NOW });
const deletingWithHook = (conditions: Condition[] = []) =>
  m('deleting-machine-with-kcp-pre-terminate-hook', { hooks: [HOOK], deletedAt: NOW, conditions });
const deletingWithOtherHooksOld = () =>
  m('deleting-machine-with-kcp-and-other-pre-terminate-hooks', { hooks: [HOOK, OTHER_HOOK], deletedAt: NOW - 60_000 });

const kcp = (external = false): KubeadmControlPlane => {
  const k = kcpFixture({ version: 'v1.31.0' });
  if (external)
    k.spec.kubeadmConfigSpec!.clusterConfiguration = { etcd: { external: { endpoints: ['1.2.3.4'] } } } as never;
  return k;
};

/** upstream etcdMembers(machines): one member per Machine with a Node, named after it. */
const etcdMembers = (machines: Machine[]): EtcdMember[] =>
  machines.filter((x) => x.status?.nodeRef?.name).map((x, i) => ({ id: String(i + 1), name: x.status!.nodeRef!.name }));

const log: ReconcileLogger = { log: () => undefined, error: () => undefined, debug: () => undefined } as never;

/** Records forwardEtcdLeadership / removeEtcdMemberForMachine; `leader` is the Node whose member leads. */
function fakeWorkloadCluster(leader?: string, moveError?: Error) {
  const calls = { forward: [] as (string | undefined)[], remove: [] as string[] };
  const wc = {
    forwardEtcdLeadership: async (from: Machine, to: Machine | undefined) => {
      calls.forward.push(to?.metadata.name);
      if (from.status?.nodeRef?.name !== leader) return;
      if (!to) throw new Error('leader candidate cannot be nil');
      if (moveError) throw moveError;
    },
    removeEtcdMemberForMachine: async (x: Machine) => {
      calls.remove.push(x.metadata.name!);
    },
  } as unknown as WorkloadCluster;
  const provider: WorkloadClusterProvider = { forCluster: async () => wc };
  return { wc, provider, calls };
}

/** A client that only patches annotations of the given Machines in memory. */
function recordingClient(machines: Machine[]): Client {
  return {
    patch: async (ref: { name: string }, _type: string, body: { metadata: { annotations: Record<string, null> } }) => {
      const target = machines.find((x) => x.metadata.name === ref.name)!;
      for (const k of Object.keys(body.metadata.annotations)) delete target.metadata.annotations?.[k];
      return target;
    },
  } as unknown as Client;
}

const clusterObj = {
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'Cluster',
  metadata: { name: CLUSTER, namespace: NS },
};

describe('reconcilePreTerminateHook (upstream TestKubeadmControlPlaneReconciler_reconcilePreTerminateHook)', () => {
  interface Case {
    name: string;
    kcp?: KubeadmControlPlane;
    machines: Machine[];
    /** upstream ControlPlane.EtcdLeader: the Node whose member leads (the fake refuses to move others'). */
    leader?: string;
    wantRequeue?: boolean;
    wantError?: string;
    wantForward?: number;
    wantRemove?: number;
    /** Machines whose KCP hook is removed (the others keep their annotations). */
    wantHookRemoved?: string[];
  }
  const cases: Case[] = [
    { name: 'Do nothing if there are no deleting Machines', machines: [machine()], wantRequeue: false },
    {
      name: 'Requeue, if there is a deleting Machine without the KCP pre-terminate hook',
      machines: [deletingMachine(), deletingWithHook(), deletingWithOtherHooksOld()],
      wantRequeue: true,
    },
    {
      name: 'Requeue, if the oldest deleting Machine has other pre-terminate hooks with Kubernetes 1.31',
      kcp: kcp(),
      machines: [deletingWithHook(), deletingWithOtherHooksOld()],
      wantRequeue: true,
    },
    {
      name: 'Requeue, if the deleting Machine has no Deleting condition',
      kcp: kcp(),
      machines: [deletingWithHook()],
      wantRequeue: true,
    },
    {
      name: 'Requeue, if the deleting Machine has Deleting condition false',
      kcp: kcp(),
      machines: [deletingWithHook([cond('Deleting', 'False')])],
      wantRequeue: true,
    },
    {
      name: 'Requeue, if the deleting Machine has Deleting condition true but not waiting for hook',
      kcp: kcp(),
      machines: [deletingWithHook([cond('Deleting', 'True', 'Some other reason')])],
      wantRequeue: true,
    },
    {
      name: 'Forward etcd leadership, remove member and remove pre-terminate hook if > 1 CP Machines && Etcd is managed',
      kcp: kcp(),
      machines: [machine(), deletingWithHook([WAITING])],
      leader: 'deleting-machine-with-kcp-pre-terminate-hook-node',
      wantRequeue: true,
      wantForward: 1,
      wantRemove: 1,
      wantHookRemoved: ['deleting-machine-with-kcp-pre-terminate-hook'],
    },
    {
      name: 'Requeue when target k8s control plane will be in unhealthy state',
      kcp: kcp(),
      machines: [
        (() => {
          const x = machine();
          x.status!.conditions = [
            ...x.status!.conditions!.filter((c) => c.type !== 'APIServerPodHealthy'),
            cond('APIServerPodHealthy', 'False'),
          ];
          return x;
        })(),
        deletingWithHook([WAITING]),
      ],
      wantRequeue: true,
    },
    {
      name: 'Requeue when target etcd cluster will be in unhealthy state',
      kcp: kcp(),
      machines: [
        (() => {
          const x = machine();
          x.status!.conditions = [...K8S_HEALTHY, cond('EtcdMemberHealthy', 'False')];
          return x;
        })(),
        deletingWithHook([WAITING]),
      ],
      wantRequeue: true,
    },
    {
      name: 'Fails if no candidate for forwarding etcd leadership exists',
      kcp: kcp(),
      machines: [
        m('deleting-machine-with-kcp-pre-terminate-hook', {
          hooks: [HOOK],
          node: 'deleting-machine-with-kcp-pre-terminate-hook-node',
          deletedAt: NOW - 1000,
          conditions: [WAITING],
        }),
        m('deleting-machine-with-kcp-pre-terminate-hook-2', {
          hooks: [HOOK],
          node: 'deleting-machine-with-kcp-pre-terminate-hook-node-2',
          deletedAt: NOW,
          conditions: [WAITING, ...K8S_HEALTHY, ETCD_HEALTHY],
        }),
      ],
      leader: 'deleting-machine-with-kcp-pre-terminate-hook-node',
      wantError: 'unable to move etcd leadership, no candidate machines for etcd leadership found',
    },
    {
      name: 'Skip forward etcd leadership, skip remove member and remove pre-terminate hook if 1 CP Machine && Etcd is managed',
      kcp: kcp(),
      machines: [deletingWithHook([WAITING])],
      wantRequeue: true,
      wantHookRemoved: ['deleting-machine-with-kcp-pre-terminate-hook'],
    },
    {
      name: 'Skip forward etcd leadership, skip remove member and remove pre-terminate hook if > 1 CP Machines && Etcd is *not* managed',
      kcp: kcp(true),
      machines: [machine(), deletingWithHook([WAITING])],
      wantRequeue: true,
      wantHookRemoved: ['deleting-machine-with-kcp-pre-terminate-hook'],
    },
    {
      name: 'Skip forward etcd leadership, skip remove member and remove pre-terminate hook if > 1 CP Machines without a node',
      kcp: kcp(),
      machines: [
        machine(),
        m('deleting-machine-with-kcp-pre-terminate-hook', {
          hooks: [HOOK],
          node: '',
          deletedAt: NOW,
          conditions: [WAITING],
        }),
      ],
      wantRequeue: true,
      wantHookRemoved: ['deleting-machine-with-kcp-pre-terminate-hook'],
    },
  ];

  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const k = c.kcp ?? kcpFixture({ version: 'not-parsed-before-a-deleting-machine-with-the-hook' });
    const before = new Map(c.machines.map((x) => [x.metadata.name!, { ...(x.metadata.annotations ?? {}) }]));
    const decision = decidePreTerminateHook({
      kcp: k,
      machines: c.machines,
      etcdManaged: isEtcdManaged(k),
      etcdMembers: etcdMembers(c.machines),
      etcdLeader: c.leader ? { name: c.leader } : undefined,
    });
    const fake = fakeWorkloadCluster(c.leader);
    const run = reconcilePreTerminateHook(
      { client: recordingClient(c.machines), workloads: fake.provider, log },
      clusterObj as never,
      decision,
    );
    if (c.wantError) await expect(run).rejects.toThrow(c.wantError);
    else await expect(run).resolves.toEqual(c.wantRequeue ? { requeueAfterMs: DELETE_REQUEUE_AFTER_MS } : undefined);
    expect(fake.calls.forward.length).toBe(c.wantForward ?? 0);
    expect(fake.calls.remove.length).toBe(c.wantRemove ?? 0);
    for (const x of c.machines) {
      const want = { ...before.get(x.metadata.name!)! };
      if (c.wantHookRemoved?.includes(x.metadata.name!)) delete want[HOOK];
      expect(x.metadata.annotations ?? {}).toEqual(want);
    }
  });

  it('leader not read: with no candidate the workload cluster is asked with none and refuses for its leader', async () => {
    const machines = cases.find((x) => x.name.startsWith('Fails if no candidate'))!.machines;
    const decision = decidePreTerminateHook({
      kcp: kcp(),
      machines,
      etcdManaged: true,
      etcdMembers: etcdMembers(machines),
    });
    const fake = fakeWorkloadCluster('deleting-machine-with-kcp-pre-terminate-hook-node');
    await expect(
      reconcilePreTerminateHook(
        { client: recordingClient(machines), workloads: fake.provider, log },
        clusterObj as never,
        decision,
      ),
    ).rejects.toThrow('unable to move etcd leadership, no candidate machines for etcd leadership found');
    expect(fake.calls).toEqual({ forward: [undefined], remove: [] });
  });

  it('an invalid KCP version is an error once a deleting Machine carries the hook', () => {
    expect(
      decidePreTerminateHook({
        kcp: kcpFixture({ version: 'v1.x' }),
        machines: [deletingWithHook([WAITING])],
        etcdManaged: true,
      }),
    ).toEqual({ type: 'error', message: 'failed to parse Kubernetes version "v1.x"' });
  });

  it('before Kubernetes v1.31 other pre-terminate hooks do not hold KCP’s', () => {
    const x = m('d', { hooks: [HOOK, OTHER_HOOK], deletedAt: NOW, conditions: [WAITING] });
    const decision = decidePreTerminateHook({
      kcp: kcpFixture({ version: 'v1.30.5' }),
      machines: [x],
      etcdManaged: true,
    });
    expect(decision).toMatchObject({ type: 'removeHook', why: 'last control plane Machine' });
  });

  it('errors while the Nodes cannot be read or the etcd members are unknown (managed etcd)', () => {
    const input = { kcp: kcp(), machines: [machine(), deletingWithHook([WAITING])], etcdManaged: true };
    expect(decidePreTerminateHook({ ...input, nodesError: 'connection refused' })).toEqual({
      type: 'error',
      message: 'unable to remove pre-terminate hook: connection refused',
    });
    expect(decidePreTerminateHook(input)).toEqual({
      type: 'error',
      message: 'unable to remove pre-terminate hook, etcd member list is empty',
    });
  });

  it('no etcd member listed for the Machine: leadership is forwarded, nothing removed, the hook goes', async () => {
    const machines = [machine(), deletingWithHook([WAITING])];
    const decision = decidePreTerminateHook({
      kcp: kcp(),
      machines,
      etcdManaged: true,
      etcdMembers: etcdMembers([machines[0]]),
    });
    expect(decision).toMatchObject({ type: 'removeEtcdMember', member: undefined });
    const fake = fakeWorkloadCluster();
    await reconcilePreTerminateHook(
      { client: recordingClient(machines), workloads: fake.provider, log },
      clusterObj as never,
      decision,
    );
    expect(fake.calls).toEqual({ forward: ['machine'], remove: [] });
    expect(machines[1].metadata.annotations).toEqual({});
  });

  it('a failed member removal keeps the hook and fails the reconcile', async () => {
    const machines = [machine(), deletingWithHook([WAITING])];
    const decision = decidePreTerminateHook({
      kcp: kcp(),
      machines,
      etcdManaged: true,
      etcdMembers: etcdMembers(machines),
    });
    const fake = fakeWorkloadCluster();
    (fake.wc as { removeEtcdMemberForMachine: unknown }).removeEtcdMemberForMachine = async () => {
      throw new Error('etcdserver: unhealthy cluster');
    };
    await expect(
      reconcilePreTerminateHook(
        { client: recordingClient(machines), workloads: fake.provider, log },
        clusterObj as never,
        decision,
      ),
    ).rejects.toThrow(
      `failed to remove etcd member for deleting Machine ${NS}/deleting-machine-with-kcp-pre-terminate-hook: etcdserver: unhealthy cluster`,
    );
    expect(machines[1].metadata.annotations).toEqual({ [HOOK]: '' });
  });
});

describe('forwardEtcdLeadership (upstream TestKubeadmControlPlaneReconciler_forwardLeaderShip)', () => {
  const c = (etcd: boolean, mhc: boolean, upToDate: boolean) => [
    cond('EtcdMemberHealthy', etcd ? 'True' : 'False'),
    cond('HealthCheckSucceeded', mhc ? 'True' : 'False'),
    cond('UpToDate', upToDate ? 'True' : 'False'),
  ];
  const leader = m('m', { node: 'm' });
  const withoutNode = m('m-without-node', { node: '' });
  const withDeletionTimestamp = m('m-with-deletion-timestamp', { node: 'm-with-deletion-timestamp', deletedAt: NOW });
  const newest = m('m-newest', { node: 'm-newest', created: NOW, conditions: c(true, true, true) });
  const etcdUnhealthy = m('m-etcd-unhealthy', {
    node: 'm-etcd-unhealthy',
    created: NOW,
    conditions: c(false, true, true),
  });
  const mhcUnhealthy = m('m-mhc-unhealthy', {
    node: 'm-mhc-unhealthy',
    created: NOW,
    conditions: c(true, false, true),
  });
  const notUpToDate = m('m-not-up-to-date', {
    node: 'm-not-up-to-date',
    created: NOW,
    conditions: c(true, true, false),
  });
  const oldest = m('m-oldest', { node: 'm-oldest', created: NOW - 3_600_000, conditions: c(true, true, true) });

  // Leader known (upstream's case: ControlPlane.EtcdLeader is the member of Machine m) unless `leader` says otherwise.
  const run = async (
    machines: Machine[],
    deleting: Machine,
    moveError?: Error,
    leader: { name: string } | null | undefined = { name: 'm' },
  ) => {
    const fake = fakeWorkloadCluster('m', moveError);
    const candidates = getCandidatesForEtcdLeadership(machines, deleting);
    const result = forwardEtcdLeadership(fake.wc, deleting, candidates, log, leader);
    return { result, calls: fake.calls };
  };

  it('fails to forward leadership if etcd leader is not set', async () => {
    const { result, calls } = await run([leader, newest], leader, undefined, null);
    await expect(result).rejects.toThrow('unable to move etcd leadership, failed to detect etcd leader');
    expect(calls.forward).toEqual([]);
  });

  it('no op if deleting machine is not the current leader', async () => {
    const { result, calls } = await run([leader, newest, oldest], newest);
    await expect(result).resolves.toBeUndefined();
    expect(calls.forward).toEqual([]);
  });

  it('no op if deleting machine does not have a node', async () => {
    const { result, calls } = await run([leader, withoutNode], withoutNode);
    await expect(result).resolves.toBeUndefined();
    expect(calls.forward).toEqual([]);
  });

  it('fails if no candidate nodes are found', async () => {
    const { result, calls } = await run([leader, withoutNode, withDeletionTimestamp], leader);
    await expect(result).rejects.toThrow(
      'unable to move etcd leadership, no candidate machines for etcd leadership found',
    );
    expect(calls.forward).toEqual([]);
  });

  describe('leader not read: the workload cluster tells whether the member leads', () => {
    it('a follower without candidates is left alone', async () => {
      const { result, calls } = await run([newest, withDeletionTimestamp], newest, undefined, undefined);
      await expect(result).resolves.toBeUndefined();
      expect(calls.forward).toEqual([undefined]);
    });

    it('the leader without candidates cannot be moved', async () => {
      const { result } = await run([leader, withDeletionTimestamp], leader, undefined, undefined);
      await expect(result).rejects.toThrow(
        'unable to move etcd leadership, no candidate machines for etcd leadership found',
      );
    });

    it('candidates are tried in order', async () => {
      const { result, calls } = await run([leader, newest, oldest], leader, undefined, undefined);
      await expect(result).resolves.toBeUndefined();
      expect(calls.forward).toEqual(['m-newest']);
    });
  });

  it('tries candidate machines in the expected order', async () => {
    const all = [leader, withoutNode, withDeletionTimestamp, newest, etcdUnhealthy, mhcUnhealthy, notUpToDate, oldest];
    const { result, calls } = await run(all, leader, new Error('failed to forward leadership'));
    await expect(result).rejects.toThrow('failed to move etcd leadership');
    expect(calls.forward).toEqual(['m-newest', 'm-oldest', 'm-not-up-to-date', 'm-mhc-unhealthy', 'm-etcd-unhealthy']);
  });

  it('forward leadership', async () => {
    const { result, calls } = await run([leader, newest, oldest], leader);
    await expect(result).resolves.toBeUndefined();
    expect(calls.forward).toEqual(['m-newest']);
  });
});

describe('machineHasOtherPreTerminateHooks (upstream TestKubeadmControlPlaneReconciler_machineHasOtherPreTerminateHooks)', () => {
  it.each([
    ['only KCP pre-terminate hook', { [HOOK]: '', 'some-other-annotation': '' }, false],
    [
      'KCP & additional pre-terminate hooks',
      {
        [HOOK]: '',
        'some-other-annotation': '',
        'pre-terminate.delete.hook.machine.cluster.x-k8s.iotest': '',
        [OTHER_HOOK]: '',
      },
      true,
    ],
  ] as const)('%s', (_name, annotations, want) => {
    const x = machineFixture('m', { annotations: { ...annotations } });
    expect(machineHasOtherPreTerminateHooks(x)).toBe(want);
  });
});
