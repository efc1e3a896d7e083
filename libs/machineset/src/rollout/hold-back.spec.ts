// The InPlaceOnly policy's planner step (holdBackReplacements): blocked old MachineSets keep their Machines and the
// new MachineSet does not grow into their place; the same snapshots without the option show what upstream would do.
import { planRollingUpdateSync } from './plan';
import type { PlanOptions } from './plan';
import { MachineDeploymentLike, MachineSetLike, RolloutAnnotations as A } from './types';

function md(replicas: number, maxSurge: number, maxUnavailable: number): MachineDeploymentLike {
  return {
    metadata: { name: 'md', namespace: 'ns' },
    spec: {
      replicas,
      template: { spec: { version: 'v2' } },
      rollout: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge, maxUnavailable } } },
    },
  };
}

function ms(name: string, version: string, replicas: number, created = '2026-01-01T00:00:00Z'): MachineSetLike {
  return {
    metadata: { name, namespace: 'ns', creationTimestamp: created, annotations: {} },
    spec: { replicas, template: { spec: { version } } },
    status: {
      replicas,
      availableReplicas: replicas,
      upToDateReplicas: version === 'v2' ? replicas : 0,
    },
  };
}

const newMS = () => ms('new', 'v2', 0, '2026-02-01T00:00:00Z');

function plan(d: MachineDeploymentLike, machineSets: MachineSetLike[], options: PlanOptions) {
  const p = planRollingUpdateSync(
    { md: d, machineSets, machines: [] },
    {
      inPlaceUpdatesEnabled: true,
      computeDesiredMachineSet: (_, current) => structuredClone(current ?? newMS()),
      ...options,
    },
  );
  const replicas = (name: string) =>
    p.scaleIntents.get(name) ?? p.machineSets.find((m) => m.metadata.name === name)?.spec.replicas;
  return { p, replicas };
}

describe('holdBackReplacements (InPlaceOnly policy)', () => {
  it('keeps the surge Machine from being created while the only old MachineSet is blocked', () => {
    const upstream = plan(md(3, 1, 0), [ms('old', 'v1', 3)], { canUpdateMachineSetInPlace: () => false });
    expect(upstream.replicas('new')).toBe(1);
    const held = plan(md(3, 1, 0), [ms('old', 'v1', 3)], {
      canUpdateMachineSetInPlace: () => false,
      replacementsBlockedFor: new Set(['old']),
    });
    expect(held.p.createdNewMS).toBe(true);
    expect(held.replicas('new')).toBe(0);
    expect(held.replicas('old')).toBe(3);
    expect(held.p.notes.get('new')).toContain('scale up held back by the InPlaceOnly rollout policy');
  });

  it('keeps a blocked old MachineSet from scaling down for the rollout', () => {
    const machineSets = () => [ms('old', 'v1', 3), { ...newMS(), metadata: { ...newMS().metadata } }];
    const upstream = plan(md(3, 0, 1), machineSets(), { canUpdateMachineSetInPlace: () => false });
    expect(upstream.replicas('old')).toBe(2);
    const held = plan(md(3, 0, 1), machineSets(), {
      canUpdateMachineSetInPlace: () => false,
      replacementsBlockedFor: new Set(['old']),
    });
    expect(held.replicas('old')).toBe(3);
    expect(held.replicas('new')).toBe(0);
    expect(held.p.notes.get('old')).toContain('replacement held back by the InPlaceOnly rollout policy');
  });

  it('lets a blocked old MachineSet scale down when the MachineDeployment was scaled down (not a replacement)', () => {
    const held = plan(md(2, 0, 1), [ms('old', 'v1', 3), newMS()], {
      canUpdateMachineSetInPlace: () => false,
      replacementsBlockedFor: new Set(['old']),
    });
    expect(held.replicas('old')).toBe(2);
    expect(held.replicas('new')).toBe(0);
  });

  it('moves the covered old MachineSet and holds back the blocked one (a mixed rollout)', () => {
    const machineSets = [ms('a', 'v1', 2), ms('b', 'v0', 2, '2025-12-01T00:00:00Z'), newMS()];
    const held = plan(md(4, 0, 1), machineSets, {
      canUpdateMachineSetInPlace: (old) => old.metadata.name === 'a',
      replacementsBlockedFor: new Set(['b']),
    });
    const a = held.p.oldMSs.find((m) => m.metadata.name === 'a')!;
    expect(a.metadata.annotations?.[A.moveMachinesToMachineSet]).toBe('new');
    expect(held.replicas('a')).toBe(1);
    expect(held.replicas('b')).toBe(2);
    // The moved Machine comes with its acknowledgement, not with a scale up.
    expect(held.replicas('new')).toBe(0);
  });

  it('changes nothing when the option is absent or empty', () => {
    const a = plan(md(3, 1, 0), [ms('old', 'v1', 3)], { canUpdateMachineSetInPlace: () => false });
    const b = plan(md(3, 1, 0), [ms('old', 'v1', 3)], {
      canUpdateMachineSetInPlace: () => false,
      replacementsBlockedFor: new Set(),
    });
    expect([...b.p.scaleIntents]).toEqual([...a.p.scaleIntents]);
  });
});

describe('holdBackReplacements with surge and unavailability allowed', () => {
  it('does not count the new MachineSet surge as room to scale a blocked old MachineSet down', () => {
    const held = plan(md(2, 1, 1), [ms('old', 'v1', 2), newMS()], {
      canUpdateMachineSetInPlace: () => false,
      replacementsBlockedFor: new Set(['old']),
    });
    expect(held.replicas('old')).toBe(2);
    expect(held.replicas('new')).toBe(0);
  });
});
