import {
  CLUSTER_NAME_LABEL,
  MACHINE_CONTROL_PLANE_NAME_LABEL,
  UPDATE_IN_PROGRESS_ANNOTATION,
  type Cluster,
  type Machine,
} from '@capi/api';
import { buildLiveViewState, machineTile } from './view';

const T0 = '2026-01-01T00:00:00Z';

function machine(name: string, cluster: string, extra: Partial<Machine['metadata']> = {}, conditions: object[] = []) {
  return {
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Machine',
    metadata: {
      name,
      namespace: 'ns',
      uid: `uid-${name}`,
      labels: { [CLUSTER_NAME_LABEL]: cluster, [MACHINE_CONTROL_PLANE_NAME_LABEL]: `${cluster}-cp` },
      ...extra,
    },
    spec: { clusterName: cluster, version: 'v1.31.1' },
    status: { conditions },
  } as unknown as Machine;
}

const cluster = (name: string, namespace = 'ns') =>
  ({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Cluster',
    metadata: { name, namespace, uid: `uid-${namespace}-${name}` },
    spec: {},
  }) as unknown as Cluster;

describe('machineTile', () => {
  it('shows the updaters and since when of an in-place update', () => {
    const m = machine(
      'm1',
      'c',
      {
        annotations: {
          [UPDATE_IN_PROGRESS_ANNOTATION]: '',
          'in-place-updates.capi-inplace.io/updaters': 'updater-a,updater-b',
        },
      },
      [{ type: 'Updating', status: 'True', reason: 'InPlaceUpdating', lastTransitionTime: T0 }],
    );
    expect(machineTile(m)).toEqual({
      name: 'm1',
      uid: 'uid-m1',
      state: 'updating',
      label: 'Updating in place',
      version: 'v1.31.1',
      updaters: ['updater-a', 'updater-b'],
      since: T0,
      reason: 'InPlaceUpdating',
    });
  });

  it("shows a deleted Machine's Deleting reason and its deletionTimestamp as since when", () => {
    const m = machine('m1', 'c', { deletionTimestamp: '2026-01-01T00:01:00Z' }, [
      { type: 'Deleting', status: 'True', reason: 'DrainingNode', lastTransitionTime: T0 },
    ]);
    expect(machineTile(m)).toMatchObject({ state: 'deleting', reason: 'DrainingNode', since: '2026-01-01T00:01:00Z' });
  });

  it('shows since when an up-to-date Machine is so, without a reason', () => {
    const m = machine('m1', 'c', {}, [
      { type: 'Ready', status: 'True', reason: 'Ready', lastTransitionTime: T0 },
      { type: 'UpToDate', status: 'True', reason: 'UpToDate', lastTransitionTime: T0 },
    ]);
    const tile = machineTile(m);
    expect(tile).toMatchObject({ state: 'up-to-date', since: T0 });
    expect(tile.reason).toBeUndefined();
  });
});

describe('buildLiveViewState', () => {
  it("gives each Cluster its own Machines' tiles, by namespace and cluster-name label", () => {
    const state = buildLiveViewState(
      {
        clusters: [cluster('b'), cluster('a'), cluster('a', 'other')],
        controlPlanes: [],
        machineDeployments: [],
        machineSets: [],
        machines: [machine('a-1', 'a'), machine('b-1', 'b'), machine('b-2', 'b')],
      },
      [],
      new Date(T0),
    );
    expect(state.generatedAt).toBe('2026-01-01T00:00:00.000Z');
    expect(state.clusters.map((c) => `${c.namespace}/${c.name}`)).toEqual(['ns/a', 'ns/b', 'other/a']);
    expect(state.clusters.map((c) => Object.keys(c.tiles).sort())).toEqual([['uid-a-1'], ['uid-b-1', 'uid-b-2'], []]);
  });
});
