// Cases of upstream kubeadmcontrolplane_controller_test.go (TestKubeadmControlPlaneReconciler_reconcileDelete's
// messages, TestObjectsPendingDelete) and status_test.go (TestDeletingCondition; the stale Machine messages of
// Test_setScalingDownCondition, which come from aggregateStaleMachines).
import type { Condition, Machine } from '@capi/api';
import { aggregateStaleMachines, decideKcpDeletion, kcpDeletingCondition, objectsPendingDeleteNames } from './deletion';
import { kcp as kcpFixture, machine } from './testing/fixtures';

const NOW = Date.parse('2026-03-01T12:00:00Z');
const ago = (minutes: number) => new Date(NOW - minutes * 60_000).toISOString();
const cp = (name: string) => machine(name);
const worker = (name: string) => {
  const m = machine(name);
  delete m.metadata.labels!['cluster.x-k8s.io/control-plane'];
  return m;
};

describe('decideKcpDeletion (upstream reconcileDelete)', () => {
  it('deletes the control-plane Machines: "Deleting 3 Machines"', () => {
    const machines = [cp('cp-0'), cp('cp-1'), cp('cp-2')];
    expect(decideKcpDeletion({ controlPlaneMachines: machines, allMachines: machines, nowMs: NOW })).toEqual({
      type: 'deleteMachines',
      deleting: { reason: 'WaitingForMachineDeletion', message: 'Deleting 3 Machines' },
    });
    expect(decideKcpDeletion({ controlPlaneMachines: [cp('a')], allMachines: [cp('a')], nowMs: NOW }).deleting).toEqual(
      { reason: 'WaitingForMachineDeletion', message: 'Deleting 1 Machine' },
    );
  });

  it('removes the finalizer when no control-plane Machine is left', () => {
    expect(decideKcpDeletion({ controlPlaneMachines: [], allMachines: [], nowMs: NOW })).toEqual({
      type: 'done',
      deleting: { reason: 'DeletionCompleted', message: 'Deletion completed' },
    });
  });

  it('does not remove any control plane Machines if other Machines exist', () => {
    const machines = [cp('cp-0'), cp('cp-1'), cp('cp-2')];
    const workers = Array.from({ length: 10 }, (_, i) => worker(`worker-${i}`));
    expect(
      decideKcpDeletion({ controlPlaneMachines: machines, allMachines: [...machines, ...workers], nowMs: NOW }),
    ).toEqual({
      type: 'waitForWorkers',
      deleting: {
        reason: 'WaitingForWorkersDeletion',
        message:
          'KubeadmControlPlane deletion blocked because following objects still exist:\n* Machines: worker-0, worker-1, worker-2, worker-3, worker-4, ... (5 more)',
      },
    });
  });

  it('names stale control-plane Machines in the message', () => {
    const m1 = cp('m1');
    m1.metadata.deletionTimestamp = ago(60);
    expect(decideKcpDeletion({ controlPlaneMachines: [m1], allMachines: [m1], nowMs: NOW }).deleting.message).toBe(
      'Deleting 1 Machine and Machine m1 is in deletion since more than 15m',
    );
  });
});

describe('objectsPendingDeleteNames (upstream TestObjectsPendingDelete, without MachinePools)', () => {
  it('lists the worker Machines, sorted, five at most', () => {
    const all = [
      ...['cp1', 'cp2', 'cp3'].map(cp),
      ...['w1', 'w2', 'w3', 'w4', 'w5', 'w6', 'w7', 'w8'].reverse().map(worker),
    ];
    expect(objectsPendingDeleteNames(all)).toEqual(['Machines: w1, w2, w3, w4, w5, ... (3 more)']);
    expect(objectsPendingDeleteNames(['cp1', 'cp2'].map(cp))).toEqual([]);
  });
});

describe('aggregateStaleMachines', () => {
  const drainBlocked = (): Machine => {
    const m = cp('m1');
    m.metadata.deletionTimestamp = ago(60);
    const deleting: Condition = {
      type: 'Deleting',
      status: 'True',
      reason: 'DrainingNode',
      lastTransitionTime: ago(60),
      message: `Drain not completed yet (started at 2024-10-09T16:13:59Z):
* Pods pod-2-deletionTimestamp-set-1, pod-3-to-trigger-eviction-successfully-1: deletionTimestamp set, but still not removed from the Node
* Pod pod-5-to-trigger-eviction-pdb-violated-1: cannot evict pod as it would violate the pod's disruption budget. The disruption budget pod-5-pdb needs 20 healthy pods and has 20 currently
* Pod pod-6-to-trigger-eviction-some-other-error: failed to evict Pod, some other error 1
* Pod pod-9-wait-completed: waiting for completion
After above Pods have been removed from the Node, the following Pods will be evicted: pod-7-eviction-later, pod-8-eviction-later`,
    };
    m.status = { conditions: [deleting], deletion: { nodeDrainStartTime: ago(6) } };
    return m;
  };

  it('one stale Machine with a blocked drain: the likely delays', () => {
    expect(aggregateStaleMachines([drainBlocked(), cp('m2'), cp('m3')], NOW)).toBe(
      'Machine m1 is in deletion since more than 15m, delay likely due to PodDisruptionBudgets, Pods not terminating, Pod eviction errors, Pods not completed yet',
    );
  });

  it('a drain younger than 5 minutes names no delay', () => {
    const m = drainBlocked();
    m.status!.deletion = { nodeDrainStartTime: ago(4) };
    expect(aggregateStaleMachines([m], NOW)).toBe('Machine m1 is in deletion since more than 15m');
  });

  it('two stale Machines', () => {
    const [m1, m2] = [cp('m1'), cp('m2')];
    m1.metadata.deletionTimestamp = ago(60);
    m2.metadata.deletionTimestamp = ago(60);
    expect(aggregateStaleMachines([m2, m1, cp('m3')], NOW)).toBe('Machines m1, m2 are in deletion since more than 15m');
  });

  it('deleting for less than 15 minutes is not stale', () => {
    const m1 = cp('m1');
    m1.metadata.deletionTimestamp = ago(10);
    expect(aggregateStaleMachines([m1], NOW)).toBe('');
  });
});

describe('kcpDeletingCondition (upstream TestDeletingCondition)', () => {
  it('deletionTimestamp not set', () => {
    expect(kcpDeletingCondition(kcpFixture(), undefined)).toEqual({
      type: 'Deleting',
      status: 'False',
      reason: 'NotDeleting',
    });
  });

  it('deletionTimestamp set (waiting for control plane Machine deletion)', () => {
    const k = kcpFixture();
    k.metadata.deletionTimestamp = ago(1);
    expect(
      kcpDeletingCondition(k, { reason: 'WaitingForMachineDeletion', message: 'Deleting 3 Machines' }),
    ).toMatchObject({
      type: 'Deleting',
      status: 'True',
      reason: 'WaitingForMachineDeletion',
      message: 'Deleting 3 Machines',
    });
  });
});
