import { MOVE_MACHINES_TO_MACHINESET_ANNOTATION, UPDATE_IN_PROGRESS_ANNOTATION } from '@capi/api';
import { buildRolloutSnapshot, planOnce } from './planner';

describe('planner benchmark snapshot', () => {
  it('start: one old MachineSet owning every Machine; the plan surges one Machine for in-place updates', () => {
    const s = buildRolloutSnapshot(100, 'start');
    expect(s.machineSets.map((m) => m.metadata.name)).toEqual(['md-old']);
    expect(s.machines).toHaveLength(100);
    const plan = planOnce(s);
    expect(plan.createdNewMS).toBe(true);
    expect(plan.oldMSs[0].metadata.annotations?.[MOVE_MACHINES_TO_MACHINESET_ANNOTATION]).toBe(
      plan.newMS?.metadata.name,
    );
    expect(plan.scaleIntents.get(plan.newMS!.metadata.name!)).toBe(1);
  });

  it('mid: half the Machines on the new MachineSet, every 10th updating in place', () => {
    const s = buildRolloutSnapshot(100, 'mid');
    expect(s.machineSets.map((m) => m.spec.replicas)).toEqual([50, 50]);
    expect(
      s.machines.filter((m) => m.metadata.annotations?.[UPDATE_IN_PROGRESS_ANNOTATION] !== undefined),
    ).toHaveLength(5);
    const plan = planOnce(s);
    expect(plan.createdNewMS).toBe(false);
    expect(plan.newMS?.metadata.name).toBe('md-new');
  });

  it('rejects sizes that are not integers >= 2', () => {
    expect(() => buildRolloutSnapshot(1.5, 'start')).toThrow(/integer >= 2/);
  });
});
