import {
  failureDomainForScaleUp,
  hasUnhealthyControlPlaneComponents,
  maxSurge,
  needsTriggerCompletion,
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

  // Upstream reconcilers/kubeadmcontrolplane/scale_test.go TestSelectMachineForInPlaceUpdateOrScaleDown (every case).
  describe('TestSelectMachineForInPlaceUpdateOrScaleDown', () => {
    const start = Date.parse('2000-01-01T01:00:00Z');
    const HOUR = 3_600_000;
    const m = (n: number, fd: string, hours: number, opts: { marked?: boolean; unhealthy?: boolean } = {}) => {
      const x = machine(`machine-${n}`, {
        created: new Date(start + hours * HOUR).toISOString(),
        annotations: opts.marked ? { 'cluster.x-k8s.io/delete-machine': '' } : undefined,
      });
      x.spec.failureDomain = fd;
      return x;
    };
    const m1 = m(1, 'one', 1);
    const m2 = m(2, 'one', -3);
    const m3 = m(3, 'one', -4);
    const m4 = m(4, 'two', -1);
    const m5 = m(5, 'two', -2);
    const m6 = m(6, 'two', -7);
    const m7 = m(7, 'two', -5, { marked: true });
    const m8 = m(8, 'two', -6, { marked: true });
    const m9 = m(9, 'two', -5);
    const m10 = m(10, 'two', -4); // APIServerPodHealthy False
    const m11 = m(11, 'two', -3); // EtcdMemberHealthy False
    const unhealthyNames = new Set(['machine-10', 'machine-11']);
    const mc3 = [m1, m2, m3, m4, m5];
    const mc6 = [m6, m7, m8];
    const mc9 = [m9, m10, m11];
    const upToDateCP = mc3.filter((x) => x.metadata.name !== 'machine-5');
    const opts = { failureDomains: ['one', 'two'], unhealthy: (x: typeof m1) => unhealthyNames.has(x.metadata.name!) };
    it.each([
      [
        'machines needing upgrade: the oldest in the failure domain with the most needing upgrade',
        mc3,
        [m5],
        'machine-5',
      ],
      ['no outdated machines: the oldest in the largest failure domain', upToDateCP, [], 'machine-3'],
      ['a single machine marked with the delete annotation: that machine', mc6, [m6, m7], 'machine-7'],
      ['machines marked with the delete annotation: the oldest marked machine first', mc6, [m7, m8], 'machine-8'],
      ['annotated machines not in outdatedMachines: the oldest marked machine first', mc6, [], 'machine-8'],
      ['an outdated marked machine wins over outdated ones', mc3, [m7, m3], 'machine-7'],
      [
        'an up to date machine with delete annotation, while outdated machines exist: the oldest marked machine first',
        upToDateCP,
        [m5, m3, m8, m7, m6, m1, m2],
        'machine-8',
      ],
      ['the single unhealthy machine with APIServerPodHealthy False', mc9, [m9, m10], 'machine-10'],
      ['the oldest unhealthy machine (EtcdMemberHealthy False too)', mc9, [m9, m10, m11], 'machine-10'],
    ])('%s', (_, machines, outdated, want) => {
      expect(selectMachineForScaleDown(machines, outdated, opts)?.metadata.name).toBe(want);
    });
  });

  it('without failure domains in the Cluster, every Machine is "outside" them: the oldest candidate', () => {
    const x = machine('x', { created: '2026-01-01T00:00:00Z' });
    x.spec.failureDomain = 'fd1';
    const y = machine('y', { created: '2026-01-05T00:00:00Z' });
    y.spec.failureDomain = 'fd2';
    const z = machine('z', { created: '2026-01-06T00:00:00Z' });
    z.spec.failureDomain = 'fd2';
    expect(selectMachineForScaleDown([x, y, z], [])?.metadata.name).toBe('x');
    expect(selectMachineForScaleDown([x, y, z], [], { failureDomains: ['fd1', 'fd2'] })?.metadata.name).toBe('y');
  });
});

describe('hasUnhealthyControlPlaneComponents', () => {
  it('is true only for a False component condition (Unknown or missing is transient)', () => {
    expect(hasUnhealthyControlPlaneComponents(cpm('a', { healthy: false }), true)).toBe(true);
    expect(hasUnhealthyControlPlaneComponents(cpm('a'), true)).toBe(false);
    const unknown = cpm('a');
    unknown.health = [{ type: 'APIServerPodHealthy', status: 'Unknown', reason: 'InspectionFailed' }];
    expect(hasUnhealthyControlPlaneComponents(unknown, true)).toBe(false);
    const etcd = cpm('a');
    etcd.health = [{ type: 'EtcdMemberHealthy', status: 'False', reason: 'NotHealthy' }];
    expect(hasUnhealthyControlPlaneComponents(etcd, true)).toBe(true);
    expect(hasUnhealthyControlPlaneComponents(etcd, false)).toBe(false);
  });
});

describe('failureDomainForScaleUp', () => {
  it('picks the domain with fewest Machines', () => {
    const m = cpm('m');
    m.machine.spec.failureDomain = 'fd1';
    expect(failureDomainForScaleUp(['fd1', 'fd2'], [m])).toBe('fd2');
    expect(failureDomainForScaleUp([], [m])).toBeUndefined();
  });

  // Upstream control_plane_test.go TestControlPlane "MachinesUpToDate": deleting up-to-date Machines do not count.
  it('picks the domain with fewest up-to-date, not deleting Machines (TestControlPlane MachinesUpToDate)', () => {
    const at = (name: string, fd: string, upToDate: boolean, deleting = false) => {
      const x = cpm(name, { upToDate, deleting });
      x.machine.spec.failureDomain = fd;
      return x;
    };
    const machines = [
      at('m1', 'one', true),
      at('m2', 'two', false),
      at('m3', 'three', false, true),
      at('m4', 'two', true, true),
      at('m5', 'three', true),
    ];
    expect(failureDomainForScaleUp(['one', 'two', 'three'], machines)).toBe('two');
  });
});

describe('preflightChecks', () => {
  it('passes for healthy Machines with Nodes', () => {
    expect(preflightChecks([cpm('a'), cpm('b')])).toEqual({ ok: true, messages: [], results: {} });
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

// Upstream reconcilers/kubeadmcontrolplane/preflight_test.go TestPreflightChecks (the cases that apply: see the
// README for the topology, certificate and remediation-in-progress ones) and TestPreflightCheckCondition (every case).
describe('TestPreflightChecks', () => {
  const etcdFalse = (name: string) => {
    const x = cpm(name);
    x.health = x.health!.map((c) =>
      c.type === 'EtcdMemberHealthy' ? { ...c, status: 'False' as const, reason: 'NotHealthy', message: '' } : c,
    );
    return x;
  };
  it('control plane without machines (not initialized) should pass', () => {
    expect(preflightChecks([])).toEqual({ ok: true, messages: [], results: {} });
  });
  it('control plane with a deleting machine should requeue', () => {
    expect(preflightChecks([cpm('a', { deleting: true })])).toEqual({
      ok: false,
      messages: ['Machine a is deleting'],
      results: { hasDeletingMachine: true },
    });
  });
  it('control plane without certificates should requeue if scale up', () => {
    expect(preflightChecks([cpm('a')], undefined, true, { certificatesAvailable: false })).toEqual({
      ok: false,
      messages: ['cluster certificates are missing or unknown'],
      results: { certificateMissing: true },
    });
  });
  it('control plane without certificates should pass if not scale up', () => {
    expect(preflightChecks([cpm('a')]).ok).toBe(true);
  });
  it('control plane with certificates passes a scale up; without Machines nothing is checked', () => {
    expect(preflightChecks([cpm('a')], undefined, true, { certificatesAvailable: true }).ok).toBe(true);
    expect(preflightChecks([], undefined, true, { certificatesAvailable: false }).ok).toBe(true);
  });
  it('control plane without a nodeRef should requeue', () => {
    const r = preflightChecks([cpm('a', { nodeRef: false })]);
    expect(r.messages).toEqual(['Machine a does not have a corresponding Node yet (Machine.status.nodeRef not set)']);
    expect(r.results).toEqual({ controlPlaneComponentsNotHealthy: true, etcdClusterNotHealthy: true });
  });
  it('control plane with an unhealthy machine condition should requeue (control plane component)', () => {
    const r = preflightChecks([cpm('a', { healthy: false })]);
    expect(r.messages).toEqual(['Machine a reports APIServerPodHealthy condition is false (Waiting to be ready)']);
    expect(r.results).toEqual({ controlPlaneComponentsNotHealthy: true });
  });
  it('control plane with an unhealthy machine condition should requeue (etcd member)', () => {
    const r = preflightChecks([etcdFalse('a')]);
    expect(r.messages).toEqual(['Machine a reports EtcdMemberHealthy condition is false ()']);
    expect(r.results).toEqual({ etcdClusterNotHealthy: true });
    expect(preflightChecks([etcdFalse('a')], undefined, false).ok).toBe(true);
  });
  it('control plane with an healthy machine and an healthy kcp condition should pass', () => {
    expect(preflightChecks([cpm('a'), cpm('b')])).toEqual({ ok: true, messages: [], results: {} });
  });
  it.each([
    ['missing condition should return error', undefined, 'Machine a does not have APIServerPodHealthy condition'],
    ['false condition should return error', 'False', 'Machine a reports APIServerPodHealthy condition is false (m)'],
    [
      'unknown condition should return error',
      'Unknown',
      'Machine a reports APIServerPodHealthy condition is unknown (m)',
    ],
    ['true condition should not return error', 'True', undefined],
  ] as const)('TestPreflightCheckCondition: %s', (_, status, message) => {
    const x = cpm('a');
    x.health = x.health!.filter((c) => c.type !== 'APIServerPodHealthy');
    if (status) x.health.push({ type: 'APIServerPodHealthy', status, reason: 'r', message: 'm' });
    expect(preflightChecks([x]).messages).toEqual(message ? [message] : []);
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
  // Upstream control_plane_test.go TestMachinesToCompleteTriggerInPlaceUpdate (every case) and controller.go reconcile:
  // every such Machine is completed, whatever the feature gate (the marker proves a trigger started) and even deleting.
  it.each([
    ['machineWithoutAnnotations => false', {}, false],
    [
      'machineWithUpdateInProgressAnnotation => true',
      { 'in-place-updates.internal.cluster.x-k8s.io/update-in-progress': '' },
      true,
    ],
    [
      'machineWithPendingHooksAnnotation => false',
      { 'runtime.cluster.x-k8s.io/pending-hooks': 'UpdateMachine' },
      false,
    ],
    [
      'machineWithBothAnnotations => false',
      {
        'in-place-updates.internal.cluster.x-k8s.io/update-in-progress': '',
        'runtime.cluster.x-k8s.io/pending-hooks': 'UpdateMachine',
      },
      false,
    ],
  ])('needsTriggerCompletion: %s', (_, annotations, want) => {
    expect(needsTriggerCompletion(machine('m', { annotations }))).toBe(want);
    expect(needsTriggerCompletion(machine('m', { annotations, deleting: true }))).toBe(want);
  });

  it('completes every interrupted in-place trigger first, with the gate off too', () => {
    const marker = { 'in-place-updates.internal.cluster.x-k8s.io/update-in-progress': '' };
    const two = [cpm('a', { upToDate: false, annotations: marker }), cpm('b', { annotations: marker }), cpm('c')];
    expect(planReconcile(surge0, two, false)).toEqual({ type: 'completeInPlaceTrigger', machines: ['a', 'b'] });
  });

  it('completes an interrupted in-place trigger first', () => {
    const m = [
      cpm('a', {
        upToDate: false,
        annotations: { 'in-place-updates.internal.cluster.x-k8s.io/update-in-progress': '' },
      }),
      cpm('b'),
      cpm('c'),
    ];
    expect(planReconcile(surge0, m, true)).toEqual({ type: 'completeInPlaceTrigger', machines: ['a'] });
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
