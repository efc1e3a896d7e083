import { RolloutPlanner, defaultComputeDesiredMachineSet } from './planner';
import { planOnDelete, planRollingUpdate } from './plan';
import { maxSurgeUsedByScaleUp, totalReplicasWithIntents } from './rollingupdate';
import { MachineDeploymentLike, MachineLike, MachineSetLike, RolloutAnnotations as A } from './types';

function md(
  replicas: number,
  opts: { maxSurge?: number | string; maxUnavailable?: number | string; onDelete?: boolean } = {},
): MachineDeploymentLike {
  return {
    metadata: { name: 'md', namespace: 'ns' },
    spec: {
      replicas,
      template: { spec: { failureDomain: 'v2' } },
      rollout: {
        strategy: opts.onDelete
          ? { type: 'OnDelete' }
          : {
              type: 'RollingUpdate',
              rollingUpdate: { maxSurge: opts.maxSurge ?? 1, maxUnavailable: opts.maxUnavailable ?? 0 },
            },
      },
    },
  };
}

function ms(
  name: string,
  version: string,
  spec: number,
  status = spec,
  available = status,
  annotations: Record<string, string> = {},
): MachineSetLike {
  return {
    metadata: { name, annotations: { ...annotations } },
    spec: { replicas: spec, template: { spec: { failureDomain: version } } },
    status: { replicas: status, availableReplicas: available, upToDateReplicas: version === 'v2' ? available : 0 },
  };
}

function machine(name: string, owner: string, annotations: Record<string, string> = {}): MachineLike {
  return { metadata: { name, annotations, ownerReferences: [{ kind: 'MachineSet', name: owner, controller: true }] } };
}

// Returns the existing object (like the harness) or a fixed-name new MS, so tests can inspect mutations.
const sameObject = (_: MachineDeploymentLike, current: MachineSetLike | undefined) =>
  current ?? {
    metadata: { name: 'new', annotations: {} },
    spec: { replicas: 0, template: { spec: { failureDomain: 'v2' } } },
    status: { replicas: 0, availableReplicas: 0 },
  };

describe('RolloutPlanner', () => {
  describe('feature gate and predicate', () => {
    it('never calls the predicate and sets no move annotation when the InPlaceUpdates gate is off', async () => {
      const predicate = jest.fn(() => true);
      const old = ms('old', 'v1', 3);
      const p = new RolloutPlanner({
        inPlaceUpdatesEnabled: false,
        canUpdateMachineSetInPlace: predicate,
        computeDesiredMachineSet: sameObject,
      });
      p.init(md(3), [old], [], true, true);
      await p.planRollingUpdate();
      expect(predicate).not.toHaveBeenCalled();
      expect(old.metadata.annotations?.[A.moveMachinesToMachineSet]).toBeUndefined();
      expect(p.newMS?.metadata.annotations?.[A.receiveMachinesFromMachineSets]).toBeUndefined();
    });

    it('never calls the predicate with OnDelete, even with the gate on', () => {
      const predicate = jest.fn(() => true);
      const old = ms('old', 'v1', 3, 2);
      const p = new RolloutPlanner({
        inPlaceUpdatesEnabled: true,
        canUpdateMachineSetInPlace: predicate,
        computeDesiredMachineSet: sameObject,
      });
      p.init(md(3, { onDelete: true }), [old], [], true, true);
      p.planOnDelete();
      expect(predicate).not.toHaveBeenCalled();
      expect(old.metadata.annotations?.[A.disableMachineCreate]).toBe('true');
      expect(p.scaleIntents.get('old')).toBe(2);
      expect(p.notes.get('old')).toEqual(['scale down to align to existing Machines']);
    });

    it('awaits an async predicate and marks old -> new move annotations', async () => {
      const old = ms('old', 'v1', 3);
      const predicate = jest.fn(
        async (o: MachineSetLike, n: MachineSetLike) => o.metadata.name === 'old' && n.metadata.name === 'new',
      );
      const p = new RolloutPlanner({
        inPlaceUpdatesEnabled: true,
        canUpdateMachineSetInPlace: predicate,
        computeDesiredMachineSet: sameObject,
      });
      p.init(md(3), [old], [], true, true);
      await p.planRollingUpdate();
      expect(predicate).toHaveBeenCalledTimes(1);
      expect(old.metadata.annotations?.[A.moveMachinesToMachineSet]).toBe('new');
      expect(p.newMS?.metadata.annotations?.[A.receiveMachinesFromMachineSets]).toBe('old');
      // maxSurge 1 / maxUnavailable 0: one surge machine is kept as buffer for the in-place updates.
      expect(p.scaleIntents.get('new')).toBe(1);
      expect(p.notes.get('new')).toContain('surge 1 allowed to create availability for in-place updates');
    });

    it('planRollingUpdateSync rejects an async predicate with a clear error', () => {
      const p = new RolloutPlanner({
        inPlaceUpdatesEnabled: true,
        canUpdateMachineSetInPlace: async () => true,
        computeDesiredMachineSet: sameObject,
      });
      p.init(md(3), [ms('old', 'v1', 3)], [], true, true);
      expect(() => p.planRollingUpdateSync()).toThrow(/returned a Promise/);
    });

    it('propagates a predicate failure', async () => {
      const p = new RolloutPlanner({
        inPlaceUpdatesEnabled: true,
        canUpdateMachineSetInPlace: async () => {
          throw new Error('extension unreachable');
        },
        computeDesiredMachineSet: sameObject,
      });
      p.init(md(3), [ms('old', 'v1', 3)], [], true, true);
      await expect(p.planRollingUpdate()).rejects.toThrow('extension unreachable');
    });

    it('does not ask about old MachineSets without replicas', async () => {
      const predicate = jest.fn(() => true);
      const p = new RolloutPlanner({
        inPlaceUpdatesEnabled: true,
        canUpdateMachineSetInPlace: predicate,
        computeDesiredMachineSet: sameObject,
      });
      p.init(md(3), [ms('empty', 'v1', 0, 0), ms('new', 'v2', 2)], [], true, true);
      await p.planRollingUpdate();
      expect(predicate).not.toHaveBeenCalled();
    });
  });

  describe('RollingUpdate decisions', () => {
    it('resolves percentages: maxSurge rounds up, maxUnavailable rounds down', async () => {
      // 10 replicas, 25% surge -> 3 (2.5 up), 25% unavailable -> 2 (2.5 down).
      const old = ms('old', 'v1', 10);
      const p = new RolloutPlanner({ computeDesiredMachineSet: sameObject });
      p.init(md(10, { maxSurge: '25%', maxUnavailable: '25%' }), [old], [], true, true);
      await p.planRollingUpdate();
      expect(p.scaleIntents.get('new')).toBe(3);
      expect(p.scaleIntents.get('old')).toBe(8);
      expect(p.notes.get('new')).toEqual(['10 current Machines < 10 MachineDeployment spec.replicas + 3 maxSurge']);
      expect(p.notes.get('old')).toEqual(['10 available replicas > 8 minimum available replicas']);
    });

    it('scales unavailable old replicas first without touching availability', async () => {
      const old = ms('old', 'v1', 3, 3, 1);
      const p = new RolloutPlanner({ computeDesiredMachineSet: sameObject });
      p.init(md(3, { maxSurge: 0, maxUnavailable: 1 }), [old, ms('new', 'v2', 0, 0)], [], true, true);
      await p.planRollingUpdate();
      // total 3 - 2 min available -> may scale down 1, and the unavailable replicas go first.
      expect(p.scaleIntents.get('old')).toBe(2);
    });

    it('scales the new MS down to md.spec.replicas at once', async () => {
      const p = new RolloutPlanner({ computeDesiredMachineSet: sameObject });
      p.init(md(2), [ms('new', 'v2', 5, 5, 5, { [A.revision]: '1' })], [], true, true);
      await p.planRollingUpdate();
      expect(p.scaleIntents.get('new')).toBe(2);
      expect(p.notes.get('new')).toEqual([
        'scale down to align MachineSet spec.replicas to MachineDeployment spec.replicas',
      ]);
    });

    it('breaks a deadlock caused by unavailable machines on an old MS', async () => {
      const old = ms('old', 'v1', 2, 2, 1);
      const p = new RolloutPlanner({ computeDesiredMachineSet: sameObject });
      // maxSurge 1 already used by the new MS; maxUnavailable 0: nothing can move without breaching.
      p.init(md(3, { maxSurge: 1, maxUnavailable: 0 }), [old, ms('new', 'v2', 2, 2, 2)], [], true, true);
      await p.planRollingUpdate();
      expect(p.scaleIntents.get('old')).toBe(1);
      expect(p.notes.get('new')).toContain(
        'scaling down by 1 to unblock rollout stuck due to unavailable Machine on oldMS',
      );
    });

    it('acknowledges machines moved to the new MS exactly once', async () => {
      const newMS = ms('new', 'v2', 1, 2, 1, { [A.receiveMachinesFromMachineSets]: 'old', [A.revision]: '1' });
      const moved = machine('m1', 'new', { [A.pendingAcknowledgeMove]: '', [A.updateInProgress]: '' });
      const p = new RolloutPlanner({
        inPlaceUpdatesEnabled: true,
        canUpdateMachineSetInPlace: () => true,
        computeDesiredMachineSet: sameObject,
      });
      p.init(md(3), [ms('old', 'v1', 2), newMS], [moved, machine('m4', 'new')], true, true);
      await p.planRollingUpdate();
      expect(newMS.spec.replicas).toBe(2);
      expect(newMS.metadata.annotations?.[A.acknowledgedMove]).toBe('m1');
      expect(p.notes.get('new')?.[0]).toBe('acknowledge Machines m1 moved from an old MachineSet');

      // Next reconcile: already acknowledged, so replicas are not counted again.
      const again = new RolloutPlanner({
        inPlaceUpdatesEnabled: true,
        canUpdateMachineSetInPlace: () => true,
        computeDesiredMachineSet: sameObject,
      });
      again.init(md(3), [ms('old', 'v1', 2), newMS], [moved, machine('m4', 'new')], true, true);
      await again.planRollingUpdate();
      expect(again.acknowledgedMachineNames).toEqual([]);
      expect(newMS.spec.replicas).toBe(2);
    });
  });

  describe('in-place intent: surge is only what exceeds md.spec.replicas', () => {
    const inPlace = () =>
      new RolloutPlanner({
        inPlaceUpdatesEnabled: true,
        canUpdateMachineSetInPlace: () => true,
        computeDesiredMachineSet: sameObject,
      });

    it('keeps the scale up that brings the MachineSets back to md.spec.replicas (MD scaled 4 -> 6 mid-rollout)', async () => {
      const old = ms('old', 'v1', 2);
      const cur = ms('new', 'v2', 2, 2, 2, { [A.revision]: '2' });
      const p = inPlace();
      p.init(
        md(6, { maxSurge: 3, maxUnavailable: 0 }),
        [old, cur],
        [machine('m1', 'old'), machine('m2', 'old'), machine('m3', 'new'), machine('m4', 'new')],
        true,
        true,
      );
      await p.planRollingUpdate();
      // newMSNewReplicas asks for +4 (4 current < 6 + 3); only 2 of them go above 6, so only those are dropped.
      expect(p.scaleIntents.get('new')).toBe(4);
      expect(p.notes.get('new')).toEqual([
        '4 current Machines < 6 MachineDeployment spec.replicas + 3 maxSurge',
        'surge 2 dropped to prioritize in-place updates',
      ]);
      expect(old.metadata.annotations?.[A.moveMachinesToMachineSet]).toBe('new');
    });

    it('does not mistake the missing replicas for surge when maxSurge is larger than the scale up', async () => {
      const old = ms('old', 'v1', 3);
      const p = inPlace();
      // The MD was scaled from 3 to 6 when the rollout started: 3 Machines are missing, 3 more would be surge.
      p.init(
        md(6, { maxSurge: 10, maxUnavailable: 0 }),
        [old],
        [machine('m1', 'old'), machine('m2', 'old'), machine('m3', 'old')],
        true,
        true,
      );
      await p.planRollingUpdate();
      expect(p.scaleIntents.get('new')).toBe(3);
      expect(p.notes.get('new')).toContain('surge 3 dropped to prioritize in-place updates');
    });

    it('maxSurgeUsedByScaleUp: the part of the scale up above md.spec.replicas, never more than the scale up', () => {
      expect(maxSurgeUsedByScaleUp(6, 8, 4)).toBe(2);
      expect(maxSurgeUsedByScaleUp(6, 9, 6)).toBe(3);
      expect(maxSurgeUsedByScaleUp(3, 4, 1)).toBe(1); // at spec.replicas: the whole scale up is surge
      expect(maxSurgeUsedByScaleUp(12, 10, 4)).toBe(0); // still below spec.replicas afterwards: no surge
      expect(maxSurgeUsedByScaleUp(3, 6, 2)).toBe(2);
      expect(maxSurgeUsedByScaleUp(3, 3, 0)).toBe(0);
    });

    // Upstream reconcileInPlaceUpdateIntent (machinedeployment_rollout_rollingupdate.go): each MachineSet counts as
    // max(scale intent or spec.replicas, status.replicas).
    it('totalReplicasWithIntents counts each MachineSet as max(intent or spec.replicas, status.replicas)', () => {
      const mss = [ms('a', 'v1', 3, 2), ms('b', 'v1', 1, 3), ms('c', 'v2', 0, 0)];
      expect(totalReplicasWithIntents(mss, new Map())).toBe(3 + 3 + 0);
      expect(
        totalReplicasWithIntents(
          mss,
          new Map([
            ['a', 2],
            ['b', 0],
            ['c', 2],
          ]),
        ),
      ).toBe(2 + 3 + 2);
    });

    it('counts an old MachineSet scaling down with its intent: a scale up back to md.spec.replicas is no surge', async () => {
      // One Machine of the old MS is gone (status 2 of spec 3) and maxUnavailable 1 lets it scale down to 2: with the
      // new MS at 1 the MachineSets hold md.spec.replicas, so the new Machine is not surge and is not dropped.
      const old = ms('old', 'v1', 3, 2, 2);
      const p = inPlace();
      p.init(
        md(3, { maxSurge: 1, maxUnavailable: 1 }),
        [old],
        [machine('m1', 'old'), machine('m2', 'old')],
        true,
        true,
      );
      await p.planRollingUpdate();
      expect(p.scaleIntents.get('old')).toBe(2);
      expect(old.metadata.annotations?.[A.moveMachinesToMachineSet]).toBe('new');
      expect(p.scaleIntents.get('new')).toBe(1);
      expect(p.notes.get('new')).toEqual(['3 current Machines < 3 MachineDeployment spec.replicas + 1 maxSurge']);
    });
  });

  // Upstream TestComputeDesiredNewMS / TestComputeDesiredOldMS (machinedeployment_rollout_planner_test.go), through init:
  // the annotations the planner itself sets on top of computeDesiredMachineSet's.
  describe('desired new and old MachineSets (revision, disable-machine-create)', () => {
    const HISTORY = 'machinedeployment.clusters.x-k8s.io/revision-history';
    const plannerAnnotations = (machineSets: MachineSetLike[], deployment = md(3)) => {
      const p = new RolloutPlanner({ computeDesiredMachineSet: sameObject });
      p.init(deployment, machineSets, [], true, true);
      return { newMS: p.newMS?.metadata.annotations, oldMSs: p.oldMSs.map((o) => o.metadata.annotations) };
    };

    it('should compute Revision annotations for newMS, no oldMS', () => {
      expect(plannerAnnotations([]).newMS).toEqual({ [A.revision]: '1', [A.disableMachineCreate]: 'false' });
    });

    it('should update Revision annotations for newMS when required', () => {
      const current = ms('cur', 'v2', 3, 3, 3, { [A.revision]: '1' });
      const old = ms('old', 'v1', 0, 0, 0, { [A.revision]: '2' });
      expect(plannerAnnotations([current, old]).newMS).toEqual({
        [A.revision]: '3',
        [HISTORY]: '1',
        [A.disableMachineCreate]: 'false',
      });
    });

    it('should preserve Revision annotations for newMS when already up to date', () => {
      const current = ms('cur', 'v2', 3, 3, 3, { [A.revision]: '3', [HISTORY]: '1' });
      const old = ms('old', 'v1', 0, 0, 0, { [A.revision]: '2' });
      expect(plannerAnnotations([current, old]).newMS).toEqual({
        [A.revision]: '3',
        [HISTORY]: '1',
        [A.disableMachineCreate]: 'false',
      });
    });

    it('should carry over Revision annotations from oldMS', () => {
      const old = ms('old', 'v1', 3, 3, 3, { [A.revision]: '4', [HISTORY]: '1,3' });
      expect(plannerAnnotations([old]).oldMSs).toEqual([
        { [A.revision]: '4', [HISTORY]: '1,3', [A.disableMachineCreate]: 'false' },
      ]);
    });

    it('should disable creation of machines on oldMS when rollout strategy is OnDelete', () => {
      const old = ms('old', 'v1', 3, 3, 3, { [A.revision]: '4', [HISTORY]: '1,3' });
      expect(plannerAnnotations([old], md(3, { onDelete: true })).oldMSs).toEqual([
        { [A.revision]: '4', [HISTORY]: '1,3', [A.disableMachineCreate]: 'true' },
      ]);
    });
  });

  describe('init', () => {
    it('rejects nil replicas with a clear error', () => {
      const bad = md(3);
      delete bad.spec.replicas;
      expect(() => new RolloutPlanner().init(bad, [], [], true, true)).toThrow(
        /spec.replicas for MachineDeployment md is nil/,
      );
      const badMS = ms('x', 'v1', 1);
      delete badMS.spec.replicas;
      expect(() => new RolloutPlanner().init(md(1), [badMS], [], true, true)).toThrow(
        /spec.replicas for MachineSet x is nil/,
      );
      const unnamed = ms('', 'v1', 1);
      expect(() => new RolloutPlanner().init(md(1), [unnamed], [], true, true)).toThrow(
        'MachineSet without metadata.name',
      );
      expect(() => new RolloutPlanner().init(md(1), [ms('a', 'v1', 1), ms('a', 'v2', 1)], [], true, true)).toThrow(
        'duplicate MachineSet name a',
      );
    });

    it('refuses to create a MachineSet when templates do not exist', () => {
      expect(() => new RolloutPlanner().init(md(1), [], [], true, false)).toThrow(
        'cannot create a MachineSet when templates do not exist',
      );
    });

    it('does not create a new MS when not asked to', () => {
      const p = new RolloutPlanner();
      p.init(md(1), [ms('old', 'v1', 1)], [], false, true);
      expect(p.newMS).toBeUndefined();
      expect(p.oldMSs.map((m) => m.metadata.name)).toEqual(['old']);
    });

    it('gives the new MS the next revision and notes when an MS becomes current again', () => {
      const p = new RolloutPlanner({ computeDesiredMachineSet: sameObject });
      const back = ms('back', 'v2', 1, 1, 1, { [A.revision]: '1' });
      p.init(md(3), [ms('old', 'v1', 2, 2, 2, { [A.revision]: '2' }), back], [], true, true);
      expect(back.metadata.annotations?.[A.revision]).toBe('3');
      expect(back.metadata.annotations?.[A.revisionHistory]).toBe('1');
      expect(p.notes.get('back')).toEqual(['this is now the current MachineSet']);
      expect(p.getMachineSetDiff(back).otherChanges).toBe(`${A.revision}: 3,${A.disableMachineCreate}: false`);
    });

    it('the default desired-MS computation never mutates the input snapshot', async () => {
      const old = ms('old', 'v1', 3, 3, 3, { [A.moveMachinesToMachineSet]: 'stale' });
      const snapshot = structuredClone(old);
      const p = new RolloutPlanner({ inPlaceUpdatesEnabled: true, canUpdateMachineSetInPlace: () => true });
      p.init(md(3), [old], [], true, true);
      await p.planRollingUpdate();
      expect(old).toEqual(snapshot);
      expect(p.newMS?.metadata.name).toMatch(/^md-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
      expect(p.oldMSs[0].metadata.annotations?.[A.moveMachinesToMachineSet]).toBe(p.newMS?.metadata.name);
    });

    it('defaultComputeDesiredMachineSet drops the planner-managed move annotations', () => {
      const current = ms('x', 'v1', 1, 1, 1, { [A.acknowledgedMove]: 'm1', [A.revision]: '4', keep: 'me' });
      const desired = defaultComputeDesiredMachineSet(md(1), current);
      expect(desired.metadata.annotations).toEqual({ [A.revision]: '4', keep: 'me' });
    });
  });

  describe('functional wrappers', () => {
    it('planRollingUpdate returns the plan without mutating the inputs', async () => {
      const old = ms('old', 'v1', 3);
      const snapshot = structuredClone(old);
      const plan = await planRollingUpdate(
        { md: md(3), machineSets: [old], machines: [] },
        { inPlaceUpdatesEnabled: true, canUpdateMachineSetInPlace: () => true },
      );
      expect(old).toEqual(snapshot);
      expect(plan.newMS?.metadata.annotations?.[A.receiveMachinesFromMachineSets]).toBe('old');
      expect(
        plan.machineSets.find((m) => m.metadata.name === 'old')?.metadata.annotations?.[A.moveMachinesToMachineSet],
      ).toBe(plan.newMS?.metadata.name);
      expect(plan.scaleIntents.get(plan.newMS!.metadata.name!)).toBe(1);
      expect(plan.createdNewMS).toBe(true);
    });

    it('planOnDelete returns scale intents and notes', () => {
      const plan = planOnDelete({
        md: md(3, { onDelete: true }),
        machineSets: [ms('old', 'v1', 2, 2), ms('cur', 'v2', 0, 0, 0, { [A.revision]: '1' })],
        machines: [],
      });
      expect(plan.createdNewMS).toBe(false);
      expect(Object.fromEntries(plan.scaleIntents)).toEqual({ cur: 1 });
      expect(plan.notes.get('cur')).toEqual(['2 current Machines < 3 MachineDeployment spec.replicas']);
    });
  });
});
