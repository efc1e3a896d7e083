import {
  CLUSTER_NAME_LABEL,
  MACHINE_CONTROL_PLANE_NAME_LABEL,
  MACHINE_DEPLOYMENT_NAME_LABEL,
  UPDATE_IN_PROGRESS_ANNOTATION,
  UP_TO_DATE_CONDITION,
  type Machine,
} from '@capi/api';
import { RolloutCounter, rolloutOwnerOf } from './rollout-counts';

interface Opts {
  owner?: { md: string } | { cp: string };
  upToDate?: 'True' | 'False';
  updating?: boolean;
  deleting?: boolean;
}

function machine(uid: string, o: Opts = {}): Machine {
  const owner = o.owner ?? { md: 'md-0' };
  return {
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Machine',
    metadata: {
      name: `m-${uid}`,
      namespace: 'ns',
      uid,
      labels: {
        [CLUSTER_NAME_LABEL]: 'demo',
        ...('md' in owner
          ? { [MACHINE_DEPLOYMENT_NAME_LABEL]: owner.md }
          : { [MACHINE_CONTROL_PLANE_NAME_LABEL]: owner.cp }),
      },
      annotations: o.updating ? { [UPDATE_IN_PROGRESS_ANNOTATION]: '' } : {},
      ...(o.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
    },
    spec: { clusterName: 'demo' },
    status: o.upToDate
      ? { conditions: [{ type: UP_TO_DATE_CONDITION, status: o.upToDate, reason: 'x', lastTransitionTime: '' }] }
      : {},
  } as unknown as Machine;
}

const last = (c: RolloutCounter, name = 'md-0') => {
  const s = c.all().find((x) => x.owner.name === name)!;
  return s.points[s.points.length - 1];
};

describe('rolloutOwnerOf', () => {
  it('is the KCP for control-plane Machines and the MachineDeployment for workers', () => {
    expect(rolloutOwnerOf(machine('a', { owner: { cp: 'demo-cp' } }))).toEqual({
      namespace: 'ns',
      cluster: 'demo',
      kind: 'KubeadmControlPlane',
      name: 'demo-cp',
    });
    expect(rolloutOwnerOf(machine('b'))?.kind).toBe('MachineDeployment');
  });

  it('is undefined for a Machine no rollout owns', () => {
    const m = machine('c');
    m.metadata.labels = {};
    expect(rolloutOwnerOf(m)).toBeUndefined();
  });
});

describe('RolloutCounter', () => {
  it('counts an in-place update when a Machine stops updating with the same UID', () => {
    const c = new RolloutCounter();
    c.observe(machine('a', { upToDate: 'True' }), 1);
    c.observe(machine('a', { upToDate: 'False' }), 2);
    expect(c.observe(machine('a', { upToDate: 'False', updating: true }), 3)).toBe(false);
    expect(c.observe(machine('a', { upToDate: 'True' }), 4)).toBe(true);
    expect(last(c)).toEqual({ t: 4, inPlace: 1, replaced: 0 });
  });

  it('counts each completed in-place update of a Machine', () => {
    const c = new RolloutCounter();
    for (const t of [1, 3]) {
      c.observe(machine('a', { updating: true }), t);
      c.observe(machine('a', { upToDate: 'True' }), t + 1);
    }
    expect(last(c)).toMatchObject({ inPlace: 2, replaced: 0 });
  });

  it('does not count a Machine deleted while updating', () => {
    const c = new RolloutCounter();
    c.observe(machine('a', { updating: true }), 1);
    expect(c.observe(machine('a', { deleting: true }), 2)).toBe(false);
    expect(last(c)).toMatchObject({ inPlace: 0, replaced: 0 });
  });

  /** Two Machines created up to date, then outdated by a change of their owner. */
  const outdatedPair = (c: RolloutCounter) => {
    for (const uid of ['old-1', 'old-2']) c.observe(machine(uid, { upToDate: 'True' }), 0);
    for (const uid of ['old-1', 'old-2']) c.observe(machine(uid, { upToDate: 'False' }), 1);
  };

  it('counts a replacement when a Machine created beside outdated ones is followed by an outdated deletion (surge)', () => {
    const c = new RolloutCounter();
    outdatedPair(c);
    expect(c.observe(machine('new-1'), 2)).toBe(false);
    expect(c.observe(machine('old-1', { upToDate: 'False', deleting: true }), 3)).toBe(true);
    expect(c.forget(machine('old-1'), 4)).toBe(false);
    expect(last(c)).toEqual({ t: 3, inPlace: 0, replaced: 1 });
  });

  it('counts a replacement when an outdated Machine is deleted first and a new one follows (no surge)', () => {
    const c = new RolloutCounter();
    outdatedPair(c);
    expect(c.observe(machine('old-1', { upToDate: 'False', deleting: true }), 2)).toBe(false);
    c.forget(machine('old-1'), 3);
    c.observe(machine('old-2', { upToDate: 'False', deleting: true }), 4);
    c.forget(machine('old-2'), 5);
    // The last outdated Machine is gone before its replacement exists: it still pairs up.
    expect(c.observe(machine('new-1'), 6)).toBe(true);
    expect(c.observe(machine('new-2'), 7)).toBe(true);
    expect(c.observe(machine('new-3'), 8)).toBe(false);
    expect(last(c)).toEqual({ t: 7, inPlace: 0, replaced: 2 });
  });

  it('pairs a deletion seen only as the DELETED event', () => {
    const c = new RolloutCounter();
    outdatedPair(c);
    c.observe(machine('new-1'), 2);
    expect(c.forget(machine('old-1'), 3)).toBe(true);
    expect(last(c)).toMatchObject({ replaced: 1 });
  });

  it('pairs the deletion of a Machine not marked outdated yet (the owner deleted it first)', () => {
    const c = new RolloutCounter();
    for (const uid of ['old-1', 'old-2']) c.observe(machine(uid, { upToDate: 'True' }), 0);
    c.observe(machine('old-1', { upToDate: 'True', deleting: true }), 1);
    c.forget(machine('old-1'), 2);
    expect(c.observe(machine('new-1'), 3)).toBe(true);
    expect(last(c)).toMatchObject({ replaced: 1 });
  });

  it('counts no replacement when a cluster is created, an up-to-date owner scales up or the Cluster is deleted', () => {
    const c = new RolloutCounter();
    expect(c.observe(machine('a'), 1)).toBe(false);
    expect(c.observe(machine('b'), 1)).toBe(false);
    c.observe(machine('a', { upToDate: 'True' }), 2);
    c.observe(machine('b', { upToDate: 'True' }), 2);
    expect(c.observe(machine('c'), 3)).toBe(false);
    expect(c.observe(machine('a', { upToDate: 'True', deleting: true }), 4)).toBe(false);
    expect(c.forget(machine('b'), 5)).toBe(false);
    expect(c.forget(machine('c'), 5)).toBe(false);
    expect(last(c)).toMatchObject({ inPlace: 0, replaced: 0 });
  });

  it("does not pair another owner's Machines", () => {
    const c = new RolloutCounter();
    c.observe(machine('cp-1', { owner: { cp: 'demo-cp' }, upToDate: 'True' }), 0);
    c.observe(machine('cp-1', { owner: { cp: 'demo-cp' }, upToDate: 'False' }), 1);
    expect(c.observe(machine('w-1'), 2)).toBe(false);
    expect(c.observe(machine('cp-1', { owner: { cp: 'demo-cp' }, upToDate: 'False', deleting: true }), 3)).toBe(false);
    expect(c.observe(machine('w-2'), 4)).toBe(false);
    expect(c.observe(machine('cp-2', { owner: { cp: 'demo-cp' } }), 5)).toBe(true);
    expect(last(c, 'demo-cp')).toMatchObject({ replaced: 1 });
    expect(last(c)).toMatchObject({ replaced: 0 });
  });

  it('records the baseline without counting', () => {
    const c = new RolloutCounter();
    c.observe(machine('old', { upToDate: 'False' }), 1, true);
    expect(c.observe(machine('new'), 1, true)).toBe(false);
    expect(c.observe(machine('old', { upToDate: 'False', deleting: true }), 1, true)).toBe(false);
    c.observe(machine('upd', { updating: true }), 1, true);
    expect(c.observe(machine('upd', { upToDate: 'True' }), 2)).toBe(true);
    expect(last(c)).toMatchObject({ inPlace: 1, replaced: 0 });
  });

  it('keeps at most maxPoints points per owner, the counts staying cumulative', () => {
    const c = new RolloutCounter({ maxPoints: 3 });
    for (let t = 1; t <= 5; t++) {
      c.observe(machine('a', { updating: true }), t);
      c.observe(machine('a'), t);
    }
    const s = c.all()[0];
    expect(s.points).toHaveLength(3);
    expect(s.points.map((p) => p.inPlace)).toEqual([3, 4, 5]);
  });

  it('keeps at most maxOwners owners, dropping the one changed longest ago', () => {
    const c = new RolloutCounter({ maxOwners: 2 });
    c.observe(machine('a', { owner: { md: 'one' }, updating: true }), 1);
    c.observe(machine('b', { owner: { md: 'two' } }), 2);
    c.observe(machine('a', { owner: { md: 'one' } }), 3);
    c.observe(machine('c', { owner: { md: 'three' } }), 4);
    expect(c.all().map((s) => s.owner.name)).toEqual(['one', 'three']);
  });
});
