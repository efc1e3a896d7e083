import type { Machine } from '@capi/api';
import type { EtcdMember } from '@capi/etcd';
import {
  aggregateToKcp,
  computeControlPlaneHealth,
  isEtcdManaged,
  staticPodCondition,
  type ControlPlaneHealthInput,
} from './health';
import { kcp, machine } from './testing/fixtures';
import type { StaticPod, WorkloadNode } from './workload-cluster';

const node = (name: string, over: Partial<WorkloadNode> = {}): WorkloadNode => ({
  name,
  ready: true,
  readyStatus: 'True',
  controlPlane: true,
  ...over,
});
const pod = (name: string, over: Partial<StaticPod> = {}): StaticPod => ({
  name,
  phase: 'Running',
  conditions: [{ type: 'Ready', status: 'True' }],
  containers: [],
  ...over,
});
const podsFor = (...nodes: string[]) =>
  new Map(
    nodes.flatMap((n) =>
      ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'etcd'].map(
        (c) => [`${c}-${n}`, pod(`${c}-${n}`)] as const,
      ),
    ),
  );
const member = (name: string, id: string): EtcdMember => ({
  clusterId: '1',
  id,
  name,
  peerURLs: [],
  clientURLs: [],
  isLearner: false,
});
const withProvider = (m: Machine) => ({ ...m, spec: { ...m.spec, providerID: `in-memory://c1/${m.metadata.name}` } });

function input(over: Partial<ControlPlaneHealthInput> = {}): ControlPlaneHealthInput {
  return {
    machines: [withProvider(machine('a')), withProvider(machine('b'))],
    nodes: { value: [node('a'), node('b')] },
    pods: { value: podsFor('a', 'b') },
    etcd: {
      members: [member('a', '1'), member('b', '2')],
      leader: member('a', '1'),
      alarms: [],
    },
    etcdManaged: true,
    ...over,
  };
}

const cond = (h: ReturnType<typeof computeControlPlaneHealth>, m: string, type: string) =>
  h.machines.get(m)?.find((c) => c.type === type);

describe('staticPodCondition', () => {
  it('maps Pod phases and conditions like upstream updateStaticPodCondition', () => {
    expect(staticPodCondition('X', undefined)).toEqual({
      type: 'X',
      status: 'False',
      reason: 'DoesNotExist',
      message: 'Pod does not exist',
    });
    expect(staticPodCondition('X', pod('p'))).toEqual({ type: 'X', status: 'True', reason: 'Running' });
    expect(staticPodCondition('X', pod('p', { conditions: [{ type: 'Ready', status: 'False' }] }))).toMatchObject({
      status: 'False',
      reason: 'Provisioning',
      message: 'Waiting to be ready',
    });
    expect(
      staticPodCondition(
        'X',
        pod('p', {
          conditions: [],
          containers: [{ name: 'c', waitingReason: 'CrashLoopBackOff', waitingMessage: 'back-off 5m0s' }],
        }),
      ),
    ).toMatchObject({ status: 'False', reason: 'Failed', message: 'back-off 5m0s' });
    expect(staticPodCondition('X', pod('p', { phase: 'Pending', conditions: [] }))).toMatchObject({
      status: 'False',
      reason: 'Provisioning',
      message: 'Waiting to be scheduled',
    });
    expect(staticPodCondition('X', pod('p', { phase: 'Failed' }))).toMatchObject({
      status: 'False',
      reason: 'Failed',
      message: 'All the containers have been terminated',
    });
    expect(staticPodCondition('X', pod('p', { phase: 'Unknown' }))).toMatchObject({
      status: 'Unknown',
      reason: 'InspectionFailed',
    });
  });
});

describe('computeControlPlaneHealth', () => {
  it('all healthy: every Machine condition True, KCP conditions Healthy', () => {
    const h = computeControlPlaneHealth(input());
    expect(h.machines.get('a')?.map((c) => `${c.type}=${c.status}`)).toEqual([
      'APIServerPodHealthy=True',
      'ControllerManagerPodHealthy=True',
      'SchedulerPodHealthy=True',
      'EtcdPodHealthy=True',
      'EtcdMemberHealthy=True',
    ]);
    expect(h.kcp).toEqual([
      { type: 'ControlPlaneComponentsHealthy', status: 'True', reason: 'Healthy' },
      { type: 'EtcdClusterHealthy', status: 'True', reason: 'Healthy' },
    ]);
  });

  it('a Pod not ready on one Machine: that condition False, the KCP NotHealthy with a grouped message', () => {
    const pods = podsFor('a', 'b');
    pods.set('kube-scheduler-b', pod('kube-scheduler-b', { conditions: [{ type: 'Ready', status: 'False' }] }));
    const h = computeControlPlaneHealth(input({ pods: { value: pods } }));
    expect(cond(h, 'b', 'SchedulerPodHealthy')).toMatchObject({ status: 'False', reason: 'Provisioning' });
    expect(cond(h, 'a', 'SchedulerPodHealthy')?.status).toBe('True');
    expect(h.kcp[0]).toEqual({
      type: 'ControlPlaneComponentsHealthy',
      status: 'False',
      reason: 'NotHealthy',
      message: '* Machine b:\n  * SchedulerPodHealthy: Waiting to be ready',
    });
  });

  it('Node problems make the Pod conditions Unknown; missing Nodes and Pods are reported', () => {
    const h = computeControlPlaneHealth(
      input({
        machines: [
          withProvider(machine('a')),
          withProvider(machine('b')),
          withProvider(machine('c')),
          machine('d', { nodeRef: false }),
        ],
        nodes: { value: [node('a', { readyStatus: 'Unknown', ready: false }), node('b', { unreachable: true })] },
        pods: { value: new Map() },
      }),
    );
    expect(cond(h, 'a', 'APIServerPodHealthy')).toMatchObject({
      status: 'Unknown',
      message: 'Node Ready condition is Unknown, Pod data might be stale',
    });
    expect(cond(h, 'b', 'APIServerPodHealthy')).toMatchObject({ status: 'Unknown', message: 'Node b is unreachable' });
    expect(cond(h, 'c', 'APIServerPodHealthy')).toMatchObject({ status: 'Unknown', message: 'Node c does not exist' });
    expect(cond(h, 'd', 'APIServerPodHealthy')).toMatchObject({
      status: 'Unknown',
      message: 'Waiting for InMemoryMachine to report spec.providerID',
    });
    // d has no providerID yet: its Unknown is not noise on the KCP condition.
    expect(h.kcp[0].message).not.toContain('Machine d');
    const pods = computeControlPlaneHealth(input({ pods: { value: new Map() } }));
    expect(cond(pods, 'a', 'EtcdPodHealthy')).toMatchObject({ status: 'False', reason: 'DoesNotExist' });
    expect(pods.kcp[0].message).toBe('* Machines a, b:\n  * Control plane components: Pod does not exist');
  });

  it('deleting Machines report Deleting; Nodes without a Machine are a KCP error', () => {
    const h = computeControlPlaneHealth(
      input({ machines: [withProvider(machine('a', { deleting: true }))], nodes: { value: [node('a'), node('x')] } }),
    );
    expect(cond(h, 'a', 'APIServerPodHealthy')).toEqual({
      type: 'APIServerPodHealthy',
      status: 'False',
      reason: 'Deleting',
      message: 'Machine is deleting',
    });
    expect(cond(h, 'a', 'EtcdMemberHealthy')).toMatchObject({ status: 'False', reason: 'Deleting' });
    expect(h.kcp[0].message).toContain('* Control plane Node x does not have a corresponding Machine');
    // Upstream reports Nodes without a Machine on the components condition only, not on EtcdClusterHealthy.
    expect(h.kcp[1].message).not.toContain('Node x');
  });

  it('Nodes unreadable: everything Unknown/InspectionFailed', () => {
    const h = computeControlPlaneHealth(input({ nodes: { error: 'timeout' } }));
    expect(cond(h, 'a', 'APIServerPodHealthy')).toMatchObject({
      status: 'Unknown',
      reason: 'InspectionFailed',
      message: 'Failed to get the Node hosting the Pod: timeout',
    });
    expect(h.kcp.map((c) => `${c.type}=${c.status}/${c.reason}`)).toEqual([
      'ControlPlaneComponentsHealthy=Unknown/InspectionFailed',
      'EtcdClusterHealthy=Unknown/InspectionFailed',
    ]);
  });

  it('external etcd: no etcd conditions', () => {
    const h = computeControlPlaneHealth(input({ etcdManaged: false }));
    expect(h.machines.get('a')?.map((c) => c.type)).toEqual([
      'APIServerPodHealthy',
      'ControllerManagerPodHealthy',
      'SchedulerPodHealthy',
    ]);
    expect(h.kcp.map((c) => c.type)).toEqual(['ControlPlaneComponentsHealthy']);
    expect(isEtcdManaged(kcp())).toBe(true);
    expect(
      isEtcdManaged(
        kcp({ kubeadmConfigSpec: { clusterConfiguration: { etcd: { external: { endpoints: ['https://e:2379'] } } } } }),
      ),
    ).toBe(false);
  });
});

describe('aggregateToKcp', () => {
  it('lists at most three Machines per message and reports no Machines as Unknown', () => {
    const ms = ['a', 'b', 'c', 'd'].map((n) => withProvider(machine(n)));
    const conds = new Map(
      ms.map((m) => [m.metadata.name!, [{ type: 'X', status: 'False' as const, reason: 'R', message: 'boom' }]]),
    );
    expect(aggregateToKcp(ms, conds, [], 'T', 'control plane').message).toBe(
      '* Machines a, b, c, ... (1 more):\n  * X: boom',
    );
    expect(aggregateToKcp([], new Map(), [], 'T', 'control plane')).toEqual({
      type: 'T',
      status: 'Unknown',
      reason: 'HealthUnknown',
      message: 'No Machines reporting control plane status',
    });
  });
});
