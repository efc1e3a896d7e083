import { planReconcile, type ControlPlaneMachine } from './decide';
import { blockedRolloutOf, kcpRolloutBlocked } from './in-place-only';
import { kcp, machine } from './testing/fixtures';
import { requiredHealthConditions } from './health';
import type { NotUpToDateResult } from './uptodate';

const cpm = (name: string, upToDate: boolean, eligible = !upToDate, created?: string): ControlPlaneMachine => ({
  machine: machine(name, { created }),
  upToDate,
  eligibleForInPlaceUpdate: eligible,
  nodeHealthy: true,
  health: requiredHealthConditions(true).map((type) => ({ type, status: 'True', reason: 'Running' })),
});

describe('planReconcile under the InPlaceOnly policy', () => {
  const outdated = [cpm('a', false), cpm('b', false), cpm('c', false)];

  it('does not surge for a rollout (upstream would, with maxSurge 1) and tries the outdated Machine in place', () => {
    expect(planReconcile(kcp(), outdated, true)).toEqual({ type: 'scaleUp', rollout: true });
    expect(planReconcile(kcp(), outdated, true, [], true)).toEqual({
      type: 'rolloutMachine',
      machine: 'a',
      tryInPlace: true,
      inPlaceOnly: true,
    });
  });

  it('a Machine not eligible for in-place (rollout.after, certificates) is selected without an in-place try', () => {
    expect(planReconcile(kcp(), [cpm('a', false, false), cpm('b', true), cpm('c', true)], true, [], true)).toEqual({
      type: 'rolloutMachine',
      machine: 'a',
      tryInPlace: false,
      inPlaceOnly: true,
    });
  });

  it('scales up to spec.replicas (after a remediation) and down to it: neither is a replacement', () => {
    expect(planReconcile(kcp(), outdated.slice(1), true, [], true)).toEqual({ type: 'scaleUp', rollout: false });
    const four = [...outdated, cpm('d', true, false, '2026-02-01T00:00:00Z')];
    expect(planReconcile(kcp(), four, true, [], true)).toEqual({ type: 'scaleDown', machine: 'a' });
  });
});

describe('blockedRolloutOf', () => {
  const m = machine('m1');
  const r = { logMessages: ['rolloutAfter expired'] } as NotUpToDateResult;

  it('names the uncovered fields and the updaters asked', () => {
    const cannot = {
      canUpdate: false,
      reasons: ['x'],
      uncovered: [{ object: 'InMemoryMachine', fields: ['spec.image'] }],
      asked: ['can-update-machine.inmemory-updater'],
    };
    expect(blockedRolloutOf(m, r, { type: 'fallbackToScaleDown', reasons: ['x'], cannot }, true)).toEqual({
      reason: 'NotCoveredByUpdaters',
      subject: 'Machine m1',
      uncovered: cannot.uncovered,
      asked: cannot.asked,
    });
  });

  it('no updater; not eligible; failing preflight itself', () => {
    const none = { canUpdate: false, reasons: [], noUpdaters: true };
    expect(blockedRolloutOf(m, r, { type: 'fallbackToScaleDown', cannot: none }, true).reason).toBe('NoUpdaters');
    expect(blockedRolloutOf(m, r, undefined, false).reason).toBe('NoUpdaters');
    expect(blockedRolloutOf(m, r, undefined, true)).toEqual({
      reason: 'ReplacementRequested',
      subject: 'Machine m1',
      why: 'only a replacement does this rollout (rolloutAfter expired)',
    });
    expect(blockedRolloutOf(m, r, { type: 'fallbackToScaleDown' }, true).reason).toBe('ReplacementRequested');
  });
});

describe('kcpRolloutBlocked', () => {
  it('removes without the policy, keeps while waiting, False when nothing is outdated', () => {
    expect(kcpRolloutBlocked({ type: 'Default' }, [], true)).toBeNull();
    expect(kcpRolloutBlocked({ type: 'InPlaceOnly' }, undefined, true)).toBeUndefined();
    expect(kcpRolloutBlocked({ type: 'InPlaceOnly' }, undefined, false)).toMatchObject({ status: 'False' });
    expect(kcpRolloutBlocked({ type: 'InPlaceOnly' }, [], true)).toMatchObject({ status: 'False' });
    expect(
      kcpRolloutBlocked({ type: 'InPlaceOnly' }, [{ reason: 'NoUpdaters', subject: 'Machine a' }], true),
    ).toMatchObject({ status: 'True', reason: 'NoUpdaters' });
  });
});
