import type { Cluster, Condition, Machine, MachineDeployment, MachineSet } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import { buildClusterTree } from './build';
import type { TreeNode } from './model';
import { renderClusterTree } from './render';

const NS = 'ns';
const T0 = '2026-01-01T00:00:00Z';
const cond = (type: string, status: Condition['status'], reason = type, message?: string): Condition => ({
  type,
  status,
  reason,
  lastTransitionTime: T0,
  ...(message ? { message } : {}),
});
const owner = (kind: string, name: string) => [
  { apiVersion: 'cluster.x-k8s.io/v1beta2', kind, name, uid: `uid-${name}`, controller: true },
];

const cluster: Cluster = {
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'Cluster',
  metadata: { name: 'c1', namespace: NS, uid: 'uid-c1' },
  spec: {},
  status: {
    conditions: [cond('Available', 'True')],
    controlPlane: { desiredReplicas: 1, replicas: 1, readyReplicas: 1, availableReplicas: 1, upToDateReplicas: 1 },
    workers: { desiredReplicas: 2, replicas: 2, readyReplicas: 1, availableReplicas: 2, upToDateReplicas: 1 },
  },
} as Cluster;
const kcp: KubeObject = {
  apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2',
  kind: 'KubeadmControlPlane',
  metadata: { name: 'c1-cp', namespace: NS },
  spec: { replicas: 1, version: 'v1.31.0' },
  status: { replicas: 1, availableReplicas: 1, conditions: [cond('Available', 'True'), cond('Ready', 'False')] },
};
const md = {
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'MachineDeployment',
  metadata: { name: 'c1-md', namespace: NS },
  spec: { replicas: 2, template: { spec: { version: 'v1.31.0' } } },
  status: { replicas: 2, upToDateReplicas: 1, conditions: [cond('Available', 'True')] },
} as unknown as MachineDeployment;
const ms = (name: string, mdName = 'c1-md') =>
  ({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'MachineSet',
    metadata: { name, namespace: NS, ownerReferences: owner('MachineDeployment', mdName) },
    spec: { replicas: 1, template: { spec: { version: 'v1.31.0' } } },
    status: { replicas: 1 },
  }) as unknown as MachineSet;
const machine = (
  name: string,
  extra: { cp?: boolean; ms?: string; annotations?: Record<string, string>; conditions?: Condition[] },
) =>
  ({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Machine',
    metadata: {
      name,
      namespace: NS,
      labels: extra.cp ? { 'cluster.x-k8s.io/control-plane': '' } : {},
      ...(extra.annotations ? { annotations: extra.annotations } : {}),
      ...(extra.ms ? { ownerReferences: owner('MachineSet', extra.ms) } : {}),
    },
    spec: {
      clusterName: 'c1',
      version: 'v1.31.0',
      infrastructureRef: { apiGroup: 'x', kind: 'InMemoryMachine', name },
    },
    status: { conditions: extra.conditions ?? [cond('Ready', 'True'), cond('UpToDate', 'True')] },
  }) as unknown as Machine;

const names = (n: TreeNode): unknown => (n.children.length ? { [n.name]: n.children.map(names) } : n.name);

describe('buildClusterTree', () => {
  it('groups as clusterctl: infrastructure, control plane → its Machines, Workers → MD → MS → Machines, Other', () => {
    const tree = buildClusterTree({
      cluster,
      controlPlane: kcp,
      infrastructureCluster: { apiVersion: 'x/v1', kind: 'InMemoryCluster', metadata: { name: 'c1', namespace: NS } },
      machineDeployments: [md],
      machineSets: [ms('c1-md-b'), ms('c1-md-a'), ms('orphan-ms', 'other-md')],
      machines: [
        machine('w-2', { ms: 'c1-md-b' }),
        machine('w-1', { ms: 'c1-md-a' }),
        machine('cp-1', { cp: true }),
        machine('loose', {}),
        machine('of-orphan-ms', { ms: 'orphan-ms' }),
      ],
    });
    expect(names(tree.root)).toEqual({
      c1: [
        'c1',
        { 'c1-cp': ['cp-1'] },
        {
          Workers: [
            { 'c1-md': [{ 'c1-md-a': ['w-1'] }, { 'c1-md-b': ['w-2'] }] },
            { Other: ['loose', 'of-orphan-ms'] },
          ],
        },
      ],
    });
    expect(tree.root.children.map((c) => c.role ?? c.kind)).toEqual([
      'ClusterInfrastructure',
      'ControlPlane',
      'WorkerGroup',
    ]);
  });

  it('fills the columns as clusterctl: counters summed for the Cluster, Available for control plane and MD, Ready for Machines', () => {
    const tree = buildClusterTree({
      cluster,
      controlPlane: kcp,
      machineDeployments: [],
      machineSets: [],
      machines: [machine('cp-1', { cp: true })],
    });
    expect(tree.root).toMatchObject({
      replicas: '3/3',
      available: '3',
      ready: '2',
      upToDate: '2',
      condition: { type: 'Available' },
    });
    const cp = tree.root.children[0];
    expect(cp).toMatchObject({
      role: 'ControlPlane',
      version: 'v1.31.0',
      replicas: '1/1',
      available: '1',
      condition: { type: 'Available' },
    });
    expect(cp.ready).toBeUndefined();
    expect(cp.children[0]).toMatchObject({
      replicas: '1',
      available: '0',
      ready: '1',
      upToDate: '1',
      condition: { type: 'Ready', status: 'True' },
    });
    expect(tree.root.children.some((c) => c.name === 'Workers')).toBe(false);
  });

  it('puts control plane Machines under Other when there is no control plane object', () => {
    const tree = buildClusterTree({
      cluster,
      machineDeployments: [],
      machineSets: [],
      machines: [machine('cp-1', { cp: true })],
    });
    expect(names(tree.root)).toEqual({ c1: [{ Workers: [{ Other: ['cp-1'] }] }] });
  });

  it("shows a Machine's infrastructure machine only while it is not Ready (clusterctl's NoEcho)", () => {
    const infra = (name: string, ready: Condition['status']): KubeObject => ({
      apiVersion: 'x/v1',
      kind: 'InMemoryMachine',
      metadata: { name, namespace: NS },
      status: { conditions: [cond('Ready', ready)] },
    });
    const tree = buildClusterTree({
      cluster,
      controlPlane: kcp,
      machineDeployments: [],
      machineSets: [],
      machines: [machine('cp-1', { cp: true }), machine('cp-2', { cp: true })],
      machineInfrastructure: [infra('cp-1', 'True'), infra('cp-2', 'False')],
    });
    const [m1, m2] = tree.root.children[0].children;
    expect(m1.children).toEqual([]);
    expect(m2.children).toEqual([expect.objectContaining({ kind: 'InMemoryMachine', role: 'MachineInfrastructure' })]);
  });
});

describe('renderClusterTree', () => {
  it("lays the rows out as clusterctl's table, continuing multi-line messages, with the in-place columns", () => {
    const tree = buildClusterTree({
      cluster,
      controlPlane: kcp,
      machineDeployments: [md],
      machineSets: [ms('c1-md-a')],
      machines: [
        machine('cp-1', { cp: true }),
        machine('w-1', {
          ms: 'c1-md-a',
          annotations: {
            'in-place-updates.internal.cluster.x-k8s.io/update-in-progress': '',
            'runtime.cluster.x-k8s.io/pending-hooks': 'UpdateMachine',
            'in-place-updates.capi-inplace.io/updaters': 'updater-a',
          },
          conditions: [
            cond('Ready', 'False', 'NotReady', 'line one\nline two'),
            cond('Updating', 'True', 'InPlaceUpdating'),
          ],
        }),
      ],
    });
    const out = renderClusterTree(tree, new Date('2026-01-01T00:05:00Z'));
    expect(out.split('\n')).toEqual([
      'NAME                                    REPLICAS AVAILABLE READY UP TO DATE STATUS REASON    SINCE UPDATING UPDATER   PENDING HOOKS UPDATING SINCE MESSAGE',
      'Cluster ns/c1                           3/3      3         2     2          True   Available 5m',
      '├─KubeadmControlPlane ns/c1-cp, v1.31.0 1/1      1                          True   Available 5m',
      '│ └─Machine ns/cp-1, v1.31.0            1        0         1     1          True   Ready     5m    False',
      '└─Workers',
      '  └─MachineDeployment ns/c1-md, v1.31.0 2/2                      1          True   Available 5m',
      '    └─MachineSet ns/c1-md-a, v1.31.0    1/1',
      '      └─Machine ns/w-1, v1.31.0         1        0         0     0          False  NotReady  5m    True     updater-a UpdateMachine 5m             line one',
      '                                                                                                                                                   line two',
    ]);
  });
});
