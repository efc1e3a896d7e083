import type { MachineSet } from '@capi/api';
import { planRollingUpdateSync, type MachineSetLike } from '../rollout';
import { drainedOldMachineSets, machineSetWrites } from './plan-writes';
import { computeDesiredMachineSet } from './desired-ms';
import { machineDeployment, machineSet } from '../testing/fixtures';

const RECEIVE = 'in-place-updates.internal.cluster.x-k8s.io/receive-machines-from-machinesets';
const MOVE = 'in-place-updates.internal.cluster.x-k8s.io/move-machines-to-machineset';

function oldMS(): MachineSet {
  const ms = machineSet('md-old', {
    hash: 'old',
    version: 'v1.30.0',
    replicas: 3,
    annotations: { 'machinedeployment.clusters.x-k8s.io/revision': '1' },
  });
  ms.status = { replicas: 3, availableReplicas: 3, upToDateReplicas: 0 };
  return ms;
}

function plan(inPlace: boolean, existing: MachineSet[]) {
  const md = machineDeployment({ version: 'v1.31.0', maxSurge: 0, maxUnavailable: 1 });
  return planRollingUpdateSync(
    { md: md as never, machineSets: existing as unknown as MachineSetLike[], machines: [] },
    {
      inPlaceUpdatesEnabled: inPlace,
      canUpdateMachineSetInPlace: () => true,
      computeDesiredMachineSet: (d, c) => computeDesiredMachineSet(d as never, c as never) as unknown as MachineSetLike,
    },
  );
}

describe('machineSetWrites', () => {
  it('creates the new MS first, carrying receive-machines-from-machinesets, then tells the old MS to move', () => {
    const existing = [oldMS()];
    const writes = machineSetWrites(plan(true, existing), new Map([['md-old', existing[0]]]));
    expect(writes.map((w) => w.intent.metadata.name)).toEqual([expect.stringMatching(/^md-/), 'md-old']);
    expect(writes[0].original).toBeUndefined();
    expect(writes[0].intent.metadata.annotations?.[RECEIVE]).toBe('md-old');
    expect(writes[1].intent.metadata.annotations?.[MOVE]).toBe(writes[0].intent.metadata.name);
    expect(writes[1].intent.spec.replicas).toBe(2);
  });

  it('an old MS told to move carries the updaters that accepted the change; unknown keeps the value it has', () => {
    const UPDATERS = 'in-place-updates.capi-inplace.io/updaters';
    const existing = [oldMS()];
    const asked: string[] = [];
    const writes = machineSetWrites(
      plan(true, existing),
      new Map([['md-old', existing[0]]]),
      (o, n) => (asked.push(`${o.metadata.name}->${n.metadata.name}`), ['a-updater', 'b-updater']),
    );
    expect(writes[1].intent.metadata.annotations?.[UPDATERS]).toBe('a-updater,b-updater');
    expect(writes[0].intent.metadata.annotations?.[UPDATERS]).toBeUndefined();
    expect(asked).toEqual([`md-old->${writes[0].intent.metadata.name}`]);
    const recorded = oldMS();
    recorded.metadata.annotations = { ...recorded.metadata.annotations, [UPDATERS]: 'a-updater' };
    const kept = machineSetWrites(plan(true, [recorded]), new Map([['md-old', recorded]]), () => undefined);
    expect(kept.find((w) => w.intent.metadata.name === 'md-old')?.intent.metadata.annotations?.[UPDATERS]).toBe(
      'a-updater',
    );
    // Not moving (gate off): the annotation is not the planner's to keep.
    const off = machineSetWrites(plan(false, [recorded]), new Map([['md-old', recorded]]), () => ['a-updater']);
    expect(
      off.find((w) => w.intent.metadata.name === 'md-old')?.intent.metadata.annotations?.[UPDATERS],
    ).toBeUndefined();
  });

  it('gate off: scales the old MS down without move annotations', () => {
    const existing = [oldMS()];
    const writes = machineSetWrites(plan(false, existing), new Map([['md-old', existing[0]]]));
    const old = writes.find((w) => w.intent.metadata.name === 'md-old')!;
    expect(old.intent.spec.replicas).toBe(2);
    expect(old.intent.metadata.annotations?.[MOVE]).toBeUndefined();
    expect(writes.every((w) => !w.intent.metadata.annotations?.[RECEIVE])).toBe(true);
  });

  it('skips MachineSets whose owned fields would not change', () => {
    const md = machineDeployment({ version: 'v1.30.0' });
    const current = computeDesiredMachineSet(md, undefined);
    current.spec.replicas = 3;
    current.metadata.annotations = {
      ...current.metadata.annotations,
      'machinedeployment.clusters.x-k8s.io/revision': '1',
      'cluster.x-k8s.io/disable-machine-create': 'false',
    };
    current.status = { replicas: 3, availableReplicas: 3, upToDateReplicas: 3 };
    const p = planRollingUpdateSync(
      { md: md as never, machineSets: [current as unknown as MachineSetLike], machines: [] },
      {
        computeDesiredMachineSet: (d, c) =>
          computeDesiredMachineSet(d as never, c as never) as unknown as MachineSetLike,
      },
    );
    expect(machineSetWrites(p, new Map([[current.metadata.name!, current]]))).toEqual([]);
  });
});

describe('drainedOldMachineSets', () => {
  it('returns old MachineSets with 0 planned/spec/status replicas and no Machines, never the new one', () => {
    const drained = machineSet('md-drained', { hash: 'd', replicas: 0 });
    drained.status = { replicas: 0 };
    const stillOwning = machineSet('md-owning', { hash: 'o', replicas: 0 });
    stillOwning.status = { replicas: 0 };
    const draining = oldMS();
    const p = plan(true, [draining, drained, stillOwning]);
    const machines = [{ metadata: { ownerReferences: [{ controller: true, name: 'md-owning' }] } }];
    expect(drainedOldMachineSets(p, [draining, drained, stillOwning], machines).map((ms) => ms.metadata.name)).toEqual([
      'md-drained',
    ]);
  });
});
