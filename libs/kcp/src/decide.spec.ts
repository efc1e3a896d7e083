import {
  failureDomainForScaleUp,
  inPlacePreflightDecision,
  maxSurge,
  planReconcile,
  preflightChecks,
  selectMachineForScaleDown,
  type ControlPlaneMachine,
} from './decide';
import type { ConditionInput } from '@capi/api';
import { requiredHealthConditions } from './health';
import { kcp, machine } from './testing/fixtures';

/** Health conditions as health.ts computes them: all True, or the API server Pod not ready. */
const health = (healthy: boolean): ConditionInput[] =>
  requiredHealthConditions(true).map((type) =>
    !healthy && type === 'APIServerPodHealthy'
      ? { type, status: 'False', reason: 'Provisioning', message: 'Waiting to be ready' }
      : { type, status: 'True', reason: 'Running' },
  );

const cpm = (
  name: string,
  opts: {
    upToDate?: boolean;
    eligible?: boolean;
    healthy?: boolean;
    created?: string;
    annotations?: Record<string, string>;
    deleting?: boolean;
    nodeRef?: boolean;
  } = {},
): ControlPlaneMachine => ({
  machine: machine(name, {
    created: opts.created,
    annotations: opts.annotations,
    deleting: opts.deleting,
    nodeRef: opts.nodeRef,
  }),
  upToDate: opts.upToDate ?? true,
  eligibleForInPlaceUpdate: opts.eligible ?? !(opts.upToDate ?? true),
  nodeHealthy: opts.healthy ?? true,
  health: health(opts.healthy ?? true),
});

describe('maxSurge', () => {
  it('defaults to 1, accepts 0/1 as int or string, rejects others with a clear error', () => {
    expect(maxSurge(kcp())).toBe(1);
    expect(maxSurge(kcp({ rollout: { strategy: { rollingUpdate: { maxSurge: 0 } } } }))).toBe(0);
    expect(maxSurge(kcp({ rollout: { strategy: { rollingUpdate: { maxSurge: '1' } } } }))).toBe(1);
    expect(() => maxSurge(kcp({ rollout: { strategy: { rollingUpdate: { maxSurge: 2 } } } }))).toThrow(
      'maxSurge must be 0 or 1, got 2',
    );
    expect(() => maxSurge(kcp({ rollout: { strategy: { rollingUpdate: { maxSurge: '50%' } } } }))).toThrow('got "50%"');
  });
});

describe('selectMachineForScaleDown', () => {
  const a = machine('a', { created: '2026-01-01T00:00:00Z' });
  const b = machine('b', { created: '2026-01-02T00:00:00Z' });
  const c = machine('c', { created: '2026-01-03T00:00:00Z', annotations: { 'cluster.x-k8s.io/delete-machine': '' } });
  it('prefers marked outdated, then marked, then outdated, then oldest', () => {
    expect(selectMachineForScaleDown([a, b, c], [b, c])?.metadata.name).toBe('c');
    expect(selectMachineForScaleDown([a, b, c], [a, b])?.metadata.name).toBe('c');
    expect(selectMachineForScaleDown([a, b], [b])?.metadata.name).toBe('b');
    expect(selectMachineForScaleDown([b, a], [])?.metadata.name).toBe('a');
    expect(selectMachineForScaleDown([], [])).toBeUndefined();
  });
  it('takes the failure domain with most candidates first', () => {
    const x = machine('x', { created: '2026-01-01T00:00:00Z' });
    x.spec.failureDomain = 'fd1';
    const y = machine('y', { created: '2026-01-05T00:00:00Z' });
    y.spec.failureDomain = 'fd2';
    const z = machine('z', { created: '2026-01-06T00:00:00Z' });
    z.spec.failureDomain = 'fd2';
    expect(selectMachineForScaleDown([x, y, z], [])?.metadata.name).toBe('y');
  });
});

describe('failureDomainForScaleUp', () => {
  it('picks the domain with fewest Machines', () => {
    const m = machine('m');
    m.spec.failureDomain = 'fd1';
    expect(failureDomainForScaleUp(['fd1', 'fd2'], [m])).toBe('fd2');
    expect(failureDomainForScaleUp([], [m])).toBeUndefined();
  });
});

describe('preflightChecks', () => {
  it('passes for healthy Machines with Nodes', () => {
    expect(preflightChecks([cpm('a'), cpm('b')])).toEqual({ ok: true, messages: [] });
  });
  it('waits for deleting Machines first, even the ignored one (upstream HasDeletingMachine)', () => {
    expect(preflightChecks([cpm('a', { deleting: true }), cpm('b', { healthy: false })]).messages).toEqual([
      'Machine a is deleting',
    ]);
    expect(preflightChecks([cpm('a'), cpm('d', { deleting: true })], 'd').messages).toEqual(['Machine d is deleting']);
  });
  it('fails for Node-less Machines and Machines with health conditions not True, unless ignored; updating in place is not a preflight failure', () => {
    const r = preflightChecks([
      cpm('b', { annotations: { 'runtime.cluster.x-k8s.io/pending-hooks': 'UpdateMachine' } }),
      cpm('c', { nodeRef: false }),
      cpm('d', { healthy: false }),
      {
        ...cpm('e'),
        health: [
          {
            type: 'APIServerPodHealthy',
            status: 'Unknown',
            reason: 'InspectionFailed',
            message: 'Node e is unreachable',
          },
        ],
      },
    ]);
    expect(r.ok).toBe(false);
    expect(r.messages).toEqual([
      'Machine c does not have a corresponding Node yet (Machine.status.nodeRef not set)',
      'Machine d reports APIServerPodHealthy condition is false (Waiting to be ready)',
      'Machine e reports APIServerPodHealthy condition is unknown (Node e is unreachable)',
      'Machine e does not have ControllerManagerPodHealthy condition',
      'Machine e does not have SchedulerPodHealthy condition',
      'Machine e does not have EtcdPodHealthy condition',
      'Machine e does not have EtcdMemberHealthy condition',
    ]);
    expect(preflightChecks([cpm('a'), cpm('d', { healthy: false })], 'd').ok).toBe(true);
  });
  it('with external etcd, etcd conditions are not required', () => {
    const noEtcd = { ...cpm('a'), health: health(true).filter((c) => !c.type.startsWith('Etcd')) };
    expect(preflightChecks([noEtcd], undefined, false).ok).toBe(true);
    expect(preflightChecks([noEtcd], undefined, true).ok).toBe(false);
  });
});

describe('inPlacePreflightDecision', () => {
  it('proceeds when healthy, falls back when only the candidate is unhealthy, waits otherwise', () => {
    expect(inPlacePreflightDecision([cpm('a'), cpm('b')], 'a')).toBe('proceed');
    expect(inPlacePreflightDecision([cpm('a', { healthy: false }), cpm('b')], 'a')).toBe('fallbackToScaleDown');
    expect(inPlacePreflightDecision([cpm('a'), cpm('b', { healthy: false })], 'a')).toBe('wait');
  });
});

describe('planReconcile', () => {
  const surge0 = kcp({ rollout: { strategy: { rollingUpdate: { maxSurge: 0 } } } });
  it('initializes without Machines', () => {
    expect(planReconcile(kcp(), [], true)).toEqual({ type: 'initialize' });
  });
  it('scales up and down to spec.replicas when everything is up-to-date', () => {
    expect(planReconcile(kcp(), [cpm('a')], true)).toEqual({ type: 'scaleUp', rollout: false });
    expect(
      planReconcile(kcp({ replicas: 1 }), [cpm('a'), cpm('b', { created: '2026-01-05T00:00:00Z' })], true),
    ).toEqual({ type: 'scaleDown', machine: 'a' });
    expect(planReconcile(kcp({ replicas: 2 }), [cpm('a'), cpm('b')], true)).toEqual({ type: 'none' });
  });
  it('does not pick a second Machine while the surplus one is deleting', () => {
    expect(planReconcile(kcp({ replicas: 1 }), [cpm('a', { deleting: true }), cpm('b')], true)).toEqual({
      type: 'none',
    });
  });
  it('rollout with maxSurge 1: surge first, then one outdated Machine (in place when eligible and gate on)', () => {
    const outdated = [cpm('a', { upToDate: false }), cpm('b', { upToDate: false }), cpm('c', { upToDate: false })];
    expect(planReconcile(kcp(), outdated, true)).toEqual({ type: 'scaleUp', rollout: true });
    const surged = [...outdated, cpm('d', { created: '2026-02-01T00:00:00Z' })];
    expect(planReconcile(kcp(), surged, true)).toEqual({ type: 'rolloutMachine', machine: 'a', tryInPlace: true });
    expect(planReconcile(kcp(), surged, false)).toEqual({ type: 'rolloutMachine', machine: 'a', tryInPlace: false });
  });
  it('rollout with maxSurge 0 goes straight to the outdated Machine', () => {
    expect(
      planReconcile(surge0, [cpm('a'), cpm('b', { upToDate: false }), cpm('c', { upToDate: false })], true),
    ).toEqual({ type: 'rolloutMachine', machine: 'b', tryInPlace: true });
  });
  it('a Machine not eligible for in-place (rollout.after) is replaced', () => {
    expect(planReconcile(surge0, [cpm('a', { upToDate: false, eligible: false }), cpm('b'), cpm('c')], true)).toEqual({
      type: 'rolloutMachine',
      machine: 'a',
      tryInPlace: false,
    });
  });
  it('after a replacement deletion, scales up again', () => {
    expect(planReconcile(surge0, [cpm('b', { upToDate: false }), cpm('c', { upToDate: false })], true)).toEqual({
      type: 'scaleUp',
      rollout: true,
    });
  });
  it('never rolls out the last Machine without a surge, even with maxSurge 0', () => {
    const one = kcp({ replicas: 1, rollout: { strategy: { rollingUpdate: { maxSurge: 0 } } } });
    expect(planReconcile(one, [cpm('a', { upToDate: false })], true)).toEqual({ type: 'scaleUp', rollout: true });
    // The surged Machine is up-to-date: replicas are reached, the outdated one is deleted, not updated in place.
    expect(
      planReconcile(one, [cpm('a', { upToDate: false }), cpm('b', { created: '2026-02-01T00:00:00Z' })], true),
    ).toEqual({ type: 'rolloutMachine', machine: 'a', tryInPlace: false });
  });
  it('completes an interrupted in-place trigger first (gate on only)', () => {
    const m = [
      cpm('a', {
        upToDate: false,
        annotations: { 'in-place-updates.internal.cluster.x-k8s.io/update-in-progress': '' },
      }),
      cpm('b'),
      cpm('c'),
    ];
    expect(planReconcile(surge0, m, true)).toEqual({ type: 'completeInPlaceTrigger', machine: 'a' });
    const both = [
      cpm('a', {
        annotations: {
          'in-place-updates.internal.cluster.x-k8s.io/update-in-progress': '',
          'runtime.cluster.x-k8s.io/pending-hooks': 'UpdateMachine',
        },
      }),
      cpm('b'),
      cpm('c'),
    ];
    expect(planReconcile(surge0, both, true)).toEqual({ type: 'waitForInPlaceUpdate', machines: ['a'] });
  });
  it('waits while a Machine is updating in place: no rollout step, no scaling (one in-place update at a time)', () => {
    const updating = {
      annotations: {
        'in-place-updates.internal.cluster.x-k8s.io/update-in-progress': '',
        'runtime.cluster.x-k8s.io/pending-hooks': 'UpdateMachine',
      },
    };
    expect(
      planReconcile(surge0, [cpm('a', updating), cpm('b', { upToDate: false }), cpm('c', { upToDate: false })], true),
    ).toEqual({ type: 'waitForInPlaceUpdate', machines: ['a'] });
    // Only the pending hook left (marker already removed): still updating.
    const pendingOnly = { annotations: { 'runtime.cluster.x-k8s.io/pending-hooks': 'UpdateMachine' } };
    expect(planReconcile(kcp({ replicas: 1 }), [cpm('a', pendingOnly), cpm('b')], true)).toEqual({
      type: 'waitForInPlaceUpdate',
      machines: ['a'],
    });
  });
  it('in place only while fewer than spec.replicas Machines are up-to-date', () => {
    const three = [cpm('a', { upToDate: false }), cpm('b', { upToDate: false }), cpm('c', { upToDate: false })];
    expect(planReconcile(surge0, three, true)).toMatchObject({ type: 'rolloutMachine', tryInPlace: true });
    // replicas 3 + surge 1: three up-to-date already (one surged), the outdated one is deleted.
    const enough = [cpm('a', { upToDate: false }), cpm('b'), cpm('c'), cpm('d')];
    expect(planReconcile(kcp(), enough, true)).toEqual({ type: 'rolloutMachine', machine: 'a', tryInPlace: false });
    const notEnough = [cpm('a', { upToDate: false }), cpm('b', { upToDate: false }), cpm('c'), cpm('d')];
    expect(planReconcile(kcp(), notEnough, true)).toEqual({ type: 'rolloutMachine', machine: 'a', tryInPlace: true });
  });
});
