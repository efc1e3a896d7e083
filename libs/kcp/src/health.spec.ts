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
      'NodeKubeadmLabelsAndTaintsSet=True',
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
      'NodeKubeadmLabelsAndTaintsSet',
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

// Upstream workload_cluster_conditions_test.go TestUpdateStaticPodConditions: the NodeKubeadmLabelsAndTaintsSet
// condition next to the static Pod conditions (the KCP condition aggregates the Pod conditions only).
describe('computeControlPlaneHealth: NodeKubeadmLabelsAndTaintsSet (TestUpdateStaticPodConditions)', () => {
  const nodeCond = (h: ReturnType<typeof computeControlPlaneHealth>, m: string) =>
    cond(h, m, 'NodeKubeadmLabelsAndTaintsSet');
  const defaultConfig = (name: string) =>
    new Map([
      [name, { apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta2', kind: 'KubeadmConfig', metadata: { name }, spec: {} }],
    ]) as never;
  const single = (over: Partial<ControlPlaneHealthInput>) =>
    computeControlPlaneHealth(input({ machines: [withProvider(machine('m1', {}))], ...over }));
  const m1Node = (over: Partial<WorkloadNode> = {}) => ({ ...node('m1'), ...over });

  it('if list nodes return an error, it should report all the conditions Unknown', () => {
    const h = single({ nodes: { error: 'failed to list Nodes' } });
    expect(h.machines.get('m1')).toEqual([
      {
        type: 'NodeKubeadmLabelsAndTaintsSet',
        status: 'Unknown',
        reason: 'InspectionFailed',
        message: 'Failed to get the Node',
      },
      ...['APIServerPodHealthy', 'ControllerManagerPodHealthy', 'SchedulerPodHealthy', 'EtcdPodHealthy'].map(
        (type) => ({
          type,
          status: 'Unknown',
          reason: 'InspectionFailed',
          message: 'Failed to get the Node hosting the Pod: failed to list Nodes',
        }),
      ),
      expect.objectContaining({ type: 'EtcdMemberHealthy' }),
    ]);
  });

  it('a provisioning machine without providerID / without node: Unknown with the waiting message', () => {
    const h = computeControlPlaneHealth(input({ machines: [machine('m1', { nodeRef: false })], nodes: { value: [] } }));
    expect(nodeCond(h, 'm1')).toEqual({
      type: 'NodeKubeadmLabelsAndTaintsSet',
      status: 'Unknown',
      reason: 'InspectionFailed',
      message: 'Waiting for InMemoryMachine to report spec.providerID',
    });
    const withId = computeControlPlaneHealth(
      input({ machines: [withProvider(machine('m1', { nodeRef: false }))], nodes: { value: [] } }),
    );
    expect(nodeCond(withId, 'm1')?.message).toBe('Waiting for a Node with spec.providerID in-memory://c1/m1 to exist');
  });

  it('a node with unreachable taint should report all the conditions Unknown', () => {
    const h = single({ nodes: { value: [m1Node({ unreachable: true })] } });
    expect(nodeCond(h, 'm1')).toMatchObject({
      status: 'Unknown',
      reason: 'InspectionFailed',
      message: 'Node m1 is unreachable',
    });
  });

  it('a provisioned machine without node should report all the conditions unknown', () => {
    const h = single({ nodes: { value: [] } });
    expect(nodeCond(h, 'm1')).toMatchObject({ status: 'Unknown', message: 'Node m1 does not exist' });
    expect(cond(h, 'm1', 'APIServerPodHealthy')).toMatchObject({
      status: 'Unknown',
      message: 'Node m1 does not exist',
    });
  });

  it('a provisioned machine with a node without the control plane label should report control plane components status', () => {
    const pods = podsFor('m1');
    pods.set(
      'kube-controller-manager-m1',
      pod('kube-controller-manager-m1', { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False' }] }),
    );
    pods.set('kube-scheduler-m1', pod('kube-scheduler-m1', { phase: 'Failed', conditions: [] }));
    pods.set('etcd-m1', pod('etcd-m1', { phase: 'Succeeded', conditions: [] }));
    const h = single({ nodes: { value: [m1Node({ controlPlane: false })] }, pods: { value: pods } });
    expect(nodeCond(h, 'm1')).toEqual({
      type: 'NodeKubeadmLabelsAndTaintsSet',
      status: 'False',
      reason: 'NotSet',
      message: 'Node m1 does not have the node-role.kubernetes.io/control-plane label',
    });
    expect(cond(h, 'm1', 'APIServerPodHealthy')).toEqual({
      type: 'APIServerPodHealthy',
      status: 'True',
      reason: 'Running',
    });
    expect(cond(h, 'm1', 'ControllerManagerPodHealthy')).toMatchObject({
      status: 'False',
      message: 'Waiting to be scheduled',
    });
    expect(h.kcp[0]).toEqual({
      type: 'ControlPlaneComponentsHealthy',
      status: 'False',
      reason: 'NotHealthy',
      message:
        '* Machine m1:\n' +
        '  * ControllerManagerPodHealthy: Waiting to be scheduled\n' +
        '  * SchedulerPodHealthy: All the containers have been terminated\n' +
        '  * EtcdPodHealthy: All the containers have been terminated',
    });
  });

  it('missing control plane label and taint should surface (a default KubeadmConfig requires the taint)', () => {
    const h = single({ nodes: { value: [m1Node({ controlPlane: false })] }, kubeadmConfigs: defaultConfig('m1') });
    expect(nodeCond(h, 'm1')?.message).toBe(
      'Node m1 does not have the node-role.kubernetes.io/control-plane label and the node-role.kubernetes.io/control-plane:NoSchedule taint',
    );
  });

  it('should surface control plane nodes without the default control plane taint; with it the condition is Set', () => {
    const h = single({ nodes: { value: [m1Node()] }, kubeadmConfigs: defaultConfig('m1') });
    expect(nodeCond(h, 'm1')).toMatchObject({
      status: 'False',
      reason: 'NotSet',
      message: 'Node m1 does not have the node-role.kubernetes.io/control-plane:NoSchedule taint',
    });
    const tainted = single({
      nodes: { value: [m1Node({ taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }] })] },
      kubeadmConfigs: defaultConfig('m1'),
    });
    expect(nodeCond(tainted, 'm1')).toEqual({ type: 'NodeKubeadmLabelsAndTaintsSet', status: 'True', reason: 'Set' });
  });

  it('a deleting machine: the Node condition is still computed when the Node exists, else Deleting', () => {
    const deleting = withProvider(machine('m1', { deleting: true }));
    const withNode = computeControlPlaneHealth(input({ machines: [deleting], nodes: { value: [m1Node()] } }));
    expect(nodeCond(withNode, 'm1')).toMatchObject({ status: 'True', reason: 'Set' });
    const gone = computeControlPlaneHealth(input({ machines: [deleting], nodes: { value: [] } }));
    expect(nodeCond(gone, 'm1')).toEqual({
      type: 'NodeKubeadmLabelsAndTaintsSet',
      status: 'False',
      reason: 'Deleting',
      message: 'Machine is deleting',
    });
    expect(cond(gone, 'm1', 'APIServerPodHealthy')).toMatchObject({ status: 'False', reason: 'Deleting' });
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
