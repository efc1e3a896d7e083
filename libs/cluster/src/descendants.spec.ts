// Cases of upstream core/reconcilers/cluster/cluster_controller_test.go TestFilterOwnedDescendants and
// TestObjectsPendingDelete (no MachinePools in this project).
import type { Cluster, Machine } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import {
  filterOwnedDescendants,
  objectsPendingDeleteCount,
  objectsPendingDeleteNames,
  splitDescendants,
} from './descendants';
import { emptyDescendants, type ClusterDescendants } from './scope';

const c = { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', metadata: { name: 'c', uid: 'u' } } as Cluster;
const withCP = { ...c, spec: { controlPlaneRef: { apiGroup: 'g', kind: 'SomeKind', name: 'cp' } } } as Cluster;

function o<T extends KubeObject>(kind: string, name: string, owned = false, controlPlane = false): T {
  return {
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind,
    metadata: {
      name,
      labels: {
        'cluster.x-k8s.io/cluster-name': 'c',
        ...(controlPlane ? { 'cluster.x-k8s.io/control-plane': '' } : {}),
      },
      ...(owned
        ? { ownerReferences: [{ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', name: 'c', uid: 'u' }] }
        : {}),
    },
  } as unknown as T;
}
const names = (objs: KubeObject[]) => objs.map((x) => x.metadata.name);

describe('filterOwnedDescendants', () => {
  const d: ClusterDescendants = {
    ...emptyDescendants(),
    machineDeployments: [
      o('MachineDeployment', 'md1'),
      o('MachineDeployment', 'md2', true),
      o('MachineDeployment', 'md3'),
      o('MachineDeployment', 'md4', true),
    ],
    machineSets: [
      o('MachineSet', 'ms1'),
      o('MachineSet', 'ms2', true),
      o('MachineSet', 'ms3'),
      o('MachineSet', 'ms4', true),
    ],
    controlPlaneMachines: [o('Machine', 'm6', true, true), o('Machine', 'm3', true, true)],
    workerMachines: [o('Machine', 'm5', true), o('Machine', 'm1'), o('Machine', 'm2', true), o('Machine', 'm4')],
  };

  it('without a control plane object: owned ones, in order, control plane Machines last', () => {
    expect(names(filterOwnedDescendants(d, c))).toEqual(['md2', 'md4', 'ms2', 'ms4', 'm2', 'm5', 'm3', 'm6']);
  });

  it('with a control plane object: its Machines are left to it', () => {
    expect(names(filterOwnedDescendants(d, withCP))).toEqual(['md2', 'md4', 'ms2', 'ms4', 'm2', 'm5']);
  });

  it('an ownerReference to another Cluster of the same name in another group does not count', () => {
    const foreign = o<Machine>('Machine', 'x');
    foreign.metadata.ownerReferences = [{ apiVersion: 'other.io/v1', kind: 'Cluster', name: 'c', uid: 'u' }];
    expect(filterOwnedDescendants({ ...emptyDescendants(), workerMachines: [foreign] }, c)).toEqual([]);
  });
});

describe('objectsPendingDelete', () => {
  // Intentionally unsorted, to check the sorting.
  const d: ClusterDescendants = {
    ...emptyDescendants(),
    machineDeployments: [o('MachineDeployment', 'md2'), o('MachineDeployment', 'md1')],
    machineSets: [o('MachineSet', 'ms2'), o('MachineSet', 'ms1')],
    controlPlaneMachines: ['cp1', 'cp3', 'cp2'].map((n) => o<Machine>('Machine', n)),
    workerMachines: ['w2', 'w1', 'w5', 'w6', 'w3', 'w4', 'w8', 'w7'].map((n) => o<Machine>('Machine', n)),
  };

  it('without a control plane object', () => {
    expect(objectsPendingDeleteCount(d, c)).toBe(15);
    expect(objectsPendingDeleteNames(d, c)).toEqual([
      'Control plane Machines: cp1, cp2, cp3',
      'MachineDeployments: md1, md2',
      'MachineSets: ms1, ms2',
      'Worker Machines: w1, w2, w3, w4, w5, ... (3 more)',
    ]);
  });

  it('with a control plane object', () => {
    expect(objectsPendingDeleteCount(d, withCP)).toBe(12);
    expect(objectsPendingDeleteNames(d, withCP)).toEqual([
      'MachineDeployments: md1, md2',
      'MachineSets: ms1, ms2',
      'Worker Machines: w1, w2, w3, w4, w5, ... (3 more)',
    ]);
  });
});

describe('splitDescendants (getDescendants)', () => {
  it('control plane Machines by the control-plane label, the rest workers; unhealthy and to-be-remediated', () => {
    const unhealthy = o<Machine>('Machine', 'w-unhealthy');
    unhealthy.status = {
      conditions: [
        { type: 'HealthCheckSucceeded', status: 'False', reason: 'x', lastTransitionTime: '2020-01-01T00:00:00Z' },
        { type: 'OwnerRemediated', status: 'False', reason: 'x', lastTransitionTime: '2020-01-01T00:00:00Z' },
      ],
    } as Machine['status'];
    const d = splitDescendants(c, {
      machineDeployments: [],
      machineSets: [],
      machines: [o('Machine', 'cp', false, true), o('Machine', 'w'), unhealthy],
    });
    expect(names(d.controlPlaneMachines)).toEqual(['cp']);
    expect(names(d.workerMachines)).toEqual(['w', 'w-unhealthy']);
    expect(names(d.unhealthyMachines)).toEqual(['w-unhealthy']);
    expect(names(d.machinesToBeRemediated)).toEqual(['w-unhealthy']);
  });
});
