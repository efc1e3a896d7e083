// Upstream cluster_controller_status_test.go TestSetControlPlaneReplicas and TestSetWorkersReplicas (MachinePools,
// which this project does not have, dropped from "should count workers from different objects" and its sums).
import type { Machine, MachineDeployment, MachineSet } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import { controlPlaneReplicas, workersReplicas } from './replicas';
import {
  fakeCluster,
  fakeControlPlane,
  fakeMachine,
  fakeMachineDeployment,
  fakeMachineSet,
} from '../testing/status-fakes';

const T = 'True' as const;
const F = 'False' as const;
const m3 = (a: 'True' | 'False', r: 'True' | 'False', u: 'True' | 'False') => [
  { type: 'Available', status: a },
  { type: 'Ready', status: r },
  { type: 'UpToDate', status: u },
];

describe('controlPlaneReplicas (upstream TestSetControlPlaneReplicas)', () => {
  interface Case {
    cluster: ReturnType<typeof fakeCluster>;
    controlPlane?: KubeObject;
    controlPlaneIsNotFound?: boolean;
    machines?: Machine[];
    getDescendantsSucceeded?: boolean;
    want: object;
  }
  it.each<[string, Case]>([
    [
      'counters should be nil for a cluster with control plane, control plane does not exist',
      { cluster: fakeCluster('c', { controlPlaneRef: { name: 'cp' } }), controlPlaneIsNotFound: true, want: {} },
    ],
    [
      'counters should be nil for a cluster with control plane, unexpected error reading the CP',
      { cluster: fakeCluster('c', { controlPlaneRef: { name: 'cp' } }), want: {} },
    ],
    [
      'counters should be nil for a cluster with control plane, but not reporting counters',
      {
        cluster: fakeCluster('c', { controlPlaneRef: { name: 'cp' } }),
        controlPlane: fakeControlPlane('cp'),
        want: {},
      },
    ],
    [
      'set counters for cluster with control plane, reporting counters',
      {
        cluster: fakeCluster('c', { controlPlaneRef: { name: 'cp' } }),
        controlPlane: fakeControlPlane('cp', {
          spec: { replicas: 3 },
          status: {
            replicas: 2,
            readyReplicas: 1,
            availableReplicas: 2,
            upToDateReplicas: 0,
            versions: [
              { version: 'v1.31.1', replicas: 2 },
              { version: 'v1.32.0', replicas: 1 },
            ],
          },
        }),
        want: {
          desiredReplicas: 3,
          replicas: 2,
          readyReplicas: 1,
          availableReplicas: 2,
          upToDateReplicas: 0,
          versions: [
            { version: 'v1.31.1', replicas: 2 },
            { version: 'v1.32.0', replicas: 1 },
          ],
        },
      },
    ],
    [
      'counters should be nil for a cluster with stand alone CP machines, failed to read descendants',
      { cluster: fakeCluster('c'), getDescendantsSucceeded: false, want: {} },
    ],
    [
      'cluster with stand alone CP machines, no machines yet',
      { cluster: fakeCluster('c'), getDescendantsSucceeded: true, want: {} },
    ],
    [
      'cluster with stand alone CP machines, with machines',
      {
        cluster: fakeCluster('c'),
        getDescendantsSucceeded: true,
        machines: [
          fakeMachine('cp1', { conditions: m3(T, T, T) }),
          fakeMachine('cp2', { conditions: m3(F, T, T) }),
          fakeMachine('cp3', { conditions: m3(F, F, T) }),
          fakeMachine('cp4'),
          fakeMachine('cp5'),
        ],
        want: { desiredReplicas: 5, replicas: 5, readyReplicas: 2, availableReplicas: 1, upToDateReplicas: 3 },
      },
    ],
  ])('%s', (_name, c) => {
    const got = controlPlaneReplicas(
      c.cluster,
      c.controlPlane,
      'v1beta2',
      c.machines ?? [],
      c.controlPlaneIsNotFound ?? false,
      c.getDescendantsSucceeded ?? false,
    );
    expect(got).toEqual(c.want);
  });

  it('v1beta1 control planes: status.updatedReplicas, and available = desired - status.unavailableReplicas', () => {
    const cluster = fakeCluster('c', { controlPlaneRef: { name: 'cp' } });
    const cp = fakeControlPlane('cp', {
      spec: { replicas: 3 },
      status: { replicas: 3, readyReplicas: 3, unavailableReplicas: 1, updatedReplicas: 2, upToDateReplicas: 9 },
    });
    expect(controlPlaneReplicas(cluster, cp, 'v1beta1', [], false, true)).toEqual({
      desiredReplicas: 3,
      replicas: 3,
      readyReplicas: 3,
      availableReplicas: 2,
      upToDateReplicas: 2,
    });
    const tooMany = fakeControlPlane('cp', { spec: { replicas: 1 }, status: { unavailableReplicas: 4 } });
    expect(controlPlaneReplicas(cluster, tooMany, 'v1beta1', [], false, true).availableReplicas).toBe(0);
  });
  it('a control plane that stops reporting a counter keeps its last value; versions that are no longer there go', () => {
    const cluster = fakeCluster('c', { controlPlaneRef: { name: 'cp' } });
    cluster.status = { controlPlane: { replicas: 3, versions: [{ version: 'v1.31.0', replicas: 3 }] } };
    expect(controlPlaneReplicas(cluster, fakeControlPlane('cp'), 'v1beta2', [], false, true)).toEqual({ replicas: 3 });
  });
  it('versions in the wrong order are not taken (the last ones stay)', () => {
    const cluster = fakeCluster('c', { controlPlaneRef: { name: 'cp' } });
    cluster.status = { controlPlane: { versions: [{ version: 'v1.31.0', replicas: 3 }] } };
    const cp = fakeControlPlane('cp', { status: { versions: [{ version: 'v1.32.0' }, { version: 'v1.31.0' }] } });
    expect(controlPlaneReplicas(cluster, cp, 'v1beta2', [], false, true).versions).toEqual([
      { version: 'v1.31.0', replicas: 3 },
    ]);
  });
});

describe('workersReplicas (upstream TestSetWorkersReplicas)', () => {
  interface Case {
    mds?: MachineDeployment[];
    mss?: MachineSet[];
    machines?: Machine[];
    getDescendantsSucceeded: boolean;
    want: object;
  }
  it.each<[string, Case]>([
    ['counters should be nil if failed to get descendants', { getDescendantsSucceeded: false, want: {} }],
    ['counter should be nil there are no objects to count', { getDescendantsSucceeded: true, want: {} }],
    [
      'counter should be nil if descendants are not reporting counters',
      {
        mds: [fakeMachineDeployment('md1')],
        mss: [fakeMachineSet('ms1', { ownedByCluster: 'c' }), fakeMachineSet('ms2')],
        machines: [fakeMachine('m1')],
        getDescendantsSucceeded: true,
        want: {},
      },
    ],
    [
      'should count workers from different objects',
      {
        mds: [
          fakeMachineDeployment('md1', {
            desired: 11,
            replicas: 12,
            ready: 13,
            available: 14,
            upToDate: 15,
            versions: [
              { version: 'v1.31.0', replicas: 3 },
              { version: 'v1.32.0', replicas: 9 },
            ],
          }),
        ],
        mss: [
          fakeMachineSet('ms1', {
            ownedByCluster: 'c',
            desired: 21,
            replicas: 22,
            ready: 23,
            available: 24,
            upToDate: 25,
            versions: [{ version: 'v1.32.0', replicas: 22 }],
          }),
          // not owned by the cluster
          fakeMachineSet('ms2', {
            desired: 31,
            replicas: 32,
            ready: 33,
            available: 34,
            upToDate: 35,
            versions: [{ version: 'v1.30.0', replicas: 32 }],
          }),
        ],
        // 4 replicas, 2 Ready, 3 Available, 1 UpToDate
        machines: [
          fakeMachine('m1', { ownedByCluster: 'c', version: 'v1.31.0', conditions: m3(T, T, T) }),
          fakeMachine('m2', { ownedByCluster: 'c', version: 'v1.33.0', conditions: m3(T, F, F) }),
          fakeMachine('m3', { ownedByCluster: 'c', version: 'v1.33.0', conditions: m3(T, T, F) }),
          fakeMachine('m4', { ownedByCluster: 'c' }),
          fakeMachine('m5', { version: 'v1.29.0' }), // not owned by the cluster
        ],
        getDescendantsSucceeded: true,
        // upstream's sums less MachinePool mp1 (desired 1, replicas 2, ready 3, available 4, upToDate 5, v1.31.0 x2)
        want: {
          desiredReplicas: 36,
          replicas: 38,
          readyReplicas: 38,
          availableReplicas: 41,
          upToDateReplicas: 41,
          versions: [
            { version: 'v1.31.0', replicas: 4 },
            { version: 'v1.32.0', replicas: 31 },
            { version: 'v1.33.0', replicas: 2 },
          ],
        },
      },
    ],
  ])('%s', (_name, c) => {
    const got = workersReplicas(
      fakeCluster('c', { controlPlaneRef: { name: 'cp' } }),
      c.mds ?? [],
      c.mss ?? [],
      c.machines ?? [],
      c.getDescendantsSucceeded,
    );
    expect(got).toEqual(c.want);
  });
});
