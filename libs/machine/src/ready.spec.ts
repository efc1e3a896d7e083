import type { Condition, ConditionStatus } from '@capi/api';
import { deletingConditionForSummary, groupControlPlaneComponentMessages, readyCondition } from './ready';
import type { MachineObject } from './types';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const c = (type: string, status: ConditionStatus, reason = 'Foo', message?: string): Condition => ({
  type,
  status,
  reason,
  lastTransitionTime: 't',
  ...(message ? { message } : {}),
});

function machine(
  over: {
    deletionTimestamp?: string;
    readinessGates?: MachineObject['spec']['readinessGates'];
    drainStart?: string;
  } = {},
): MachineObject {
  return {
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Machine',
    metadata: {
      name: 'machine-test',
      namespace: 'default',
      ...(over.deletionTimestamp ? { deletionTimestamp: over.deletionTimestamp } : {}),
    },
    spec: {
      clusterName: 'c',
      infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'TestMachine', name: 'i' },
      ...(over.readinessGates ? { readinessGates: over.readinessGates } : {}),
    },
    ...(over.drainStart ? { status: { deletion: { nodeDrainStartTime: over.drainStart } } } : {}),
  } as MachineObject;
}

// The conditions of a healthy, not deleting, not updating Machine.
const base = (): Condition[] => [
  c('BootstrapConfigReady', 'True'),
  c('InfrastructureReady', 'True'),
  c('NodeHealthy', 'True'),
  c('Deleting', 'False', 'NotDeleting'),
  c('Updating', 'False', 'NotUpdating'),
];
const replace = (list: Condition[], ...next: Condition[]) => [
  ...list.filter((x) => !next.some((n) => n.type === x.type)),
  ...next,
];

describe('readyCondition (upstream TestSetReadyCondition cases)', () => {
  it('accepts HealthCheckSucceeded to be missing', () => {
    expect(readyCondition(machine(), base(), T0)).toEqual({ type: 'Ready', status: 'True', reason: 'Ready' });
  });

  it('Updating is required: missing → Unknown "Condition not yet reported"', () => {
    const noUpdating = base().filter((x) => x.type !== 'Updating');
    expect(readyCondition(machine(), noUpdating, T0)).toEqual({
      type: 'Ready',
      status: 'Unknown',
      reason: 'ReadyUnknown',
      message: '* Updating: Condition not yet reported',
    });
  });

  it('aggregates Ready correctly while the Machine is updating (Updating has negative polarity)', () => {
    const conds = replace(base(), c('Updating', 'True', 'InPlaceUpdating', 'In place update in progress'));
    expect(readyCondition(machine(), conds, T0)).toEqual({
      type: 'Ready',
      status: 'False',
      reason: 'NotReady',
      message: '* Updating: In place update in progress',
    });
  });

  it('tolerates BootstrapConfig, InfraMachine and Node that do not exist while deleting (waiting for pre-drain hooks)', () => {
    const conds = [
      c('BootstrapConfigReady', 'False', 'DoesNotExist'),
      c('InfrastructureReady', 'False', 'Deleted'),
      c('NodeHealthy', 'False', 'NodeDeleted'),
      c('Deleting', 'True', 'WaitingForPreDrainHook', 'Waiting for pre-drain hooks to succeed (hooks: test-hook)'),
      c('Updating', 'False', 'NotUpdating'),
    ];
    expect(readyCondition(machine({ deletionTimestamp: iso(T0) }), conds, T0)).toEqual({
      type: 'Ready',
      status: 'False',
      reason: 'NotReady',
      message: '* Deleting: Machine deletion in progress, stage: WaitingForPreDrainHook',
    });
  });

  it('takes HealthCheckSucceeded into account when it exists', () => {
    const conds = [...base(), c('HealthCheckSucceeded', 'False', 'SomeReason', 'Some message')];
    expect(readyCondition(machine(), conds, T0)).toEqual({
      type: 'Ready',
      status: 'False',
      reason: 'NotReady',
      message: '* HealthCheckSucceeded: Some message',
    });
  });

  it('takes readiness gates into account, with their polarity', () => {
    const m = machine({
      readinessGates: [
        { conditionType: 'MyReadinessGate' },
        { conditionType: 'MyReadinessGateGateWithNegativePolarity', polarity: 'Negative' },
      ],
    });
    const conds = [
      ...base(),
      c('HealthCheckSucceeded', 'True'),
      c('MyReadinessGate', 'False', 'SomeReason', 'Some message'),
      c('MyReadinessGateGateWithNegativePolarity', 'True', 'SomeReason', 'Some other message'),
    ];
    expect(readyCondition(m, conds, T0)).toEqual({
      type: 'Ready',
      status: 'False',
      reason: 'NotReady',
      message: '* MyReadinessGate: Some message\n* MyReadinessGateGateWithNegativePolarity: Some other message',
    });
  });

  it('groups control plane component gates with the same message', () => {
    const m = machine({
      readinessGates: [
        { conditionType: 'APIServerSomething' },
        { conditionType: 'ControllerManagerSomething' },
        { conditionType: 'EtcdSomething' },
      ],
    });
    const conds = [
      ...base(),
      c('HealthCheckSucceeded', 'True'),
      c('APIServerSomething', 'False', 'SomeReason', 'Some control plane message'),
      c('ControllerManagerSomething', 'False', 'SomeReason', 'Some control plane message'),
      c('EtcdSomething', 'False', 'SomeReason', 'Some etcd message'),
    ];
    expect(readyCondition(m, conds, T0)!.message).toBe(
      '* Control plane components: Some control plane message\n* EtcdSomething: Some etcd message',
    );
  });

  it('lists issues and unknowns in the order of the condition types, multiline messages indented, reason when no message', () => {
    const conds = replace(
      base(),
      c('BootstrapConfigReady', 'Unknown', 'InternalError', 'Please check controller logs for errors'),
      c('InfrastructureReady', 'False', 'NotReady'),
      c('NodeHealthy', 'False', 'NodeNotHealthy', '* Node.Ready: kubelet down\n* Node.DiskPressure: full'),
    );
    expect(readyCondition(machine(), conds, T0)).toEqual({
      type: 'Ready',
      status: 'False',
      reason: 'NotReady',
      message:
        '* BootstrapConfigReady: Please check controller logs for errors\n* InfrastructureReady: NotReady\n* NodeHealthy:\n  * Node.Ready: kubelet down\n  * Node.DiskPressure: full',
    });
  });

  it('Updating comes right after Deleting in the summary (upstream defaultReadinessGates order)', () => {
    const conds = replace(
      base(),
      c('NodeHealthy', 'False', 'NodeNotHealthy', 'kubelet down'),
      c('HealthCheckSucceeded', 'False', 'Unhealthy', 'remediate'),
      c('Updating', 'True', 'InPlaceUpdating', 'In-place update in progress'),
    );
    expect(readyCondition(machine(), conds, T0)).toEqual({
      type: 'Ready',
      status: 'False',
      reason: 'NotReady',
      message:
        '* Updating: In-place update in progress\n* NodeHealthy: kubelet down\n* HealthCheckSucceeded: remediate',
    });
  });

  it('a True summary shows info conditions that carry a message', () => {
    const conds = replace(base(), c('InfrastructureReady', 'True', 'Ready', 'provisioned in zone a'));
    expect(readyCondition(machine(), conds, T0)).toEqual({
      type: 'Ready',
      status: 'True',
      reason: 'Ready',
      message: '* InfrastructureReady: provisioned in zone a',
    });
  });
});

describe('deletingConditionForSummary (upstream calculateDeletingConditionForSummary)', () => {
  const deletingCond = (reason: string, message?: string) => [c('Deleting', 'True', reason, message)];

  it('without a Deleting condition', () => {
    expect(deletingConditionForSummary(machine({ deletionTimestamp: iso(T0) }), [], T0)).toMatchObject({
      status: 'True',
      reason: 'Deleting',
      message: 'Machine deletion in progress',
    });
  });

  it('DrainingNode for more than 15m names the likely delays', () => {
    const msg = [
      'Drain not completed yet (started at 2024-10-09T16:13:59Z):',
      '* Pods pod-2: deletionTimestamp set, but still not removed from the Node',
      "* Pod pod-5: cannot evict pod as it would violate the pod's disruption budget. The disruption budget pod-5-pdb needs 20 healthy pods",
      '* Pod pod-6: failed to evict Pod, some other error 1',
      '* Pod pod-9: waiting for completion',
    ].join('\n');
    const m = machine({ deletionTimestamp: iso(T0 - 16 * 60_000), drainStart: iso(T0 - 6 * 60_000) });
    expect(deletingConditionForSummary(m, deletingCond('DrainingNode', msg), T0).message).toBe(
      'Machine deletion in progress since more than 15m, stage: DrainingNode, delay likely due to PodDisruptionBudgets, Pods not terminating, Pod eviction errors, Pods not completed yet',
    );
  });

  it('WaitingForVolumeDetach for more than 15m', () => {
    const m = machine({ deletionTimestamp: iso(T0 - 16 * 60_000) });
    expect(
      deletingConditionForSummary(
        m,
        deletingCond('WaitingForVolumeDetach', 'Waiting for Node volumes to be detached'),
        T0,
      ).message,
    ).toBe('Machine deletion in progress since more than 15m, stage: WaitingForVolumeDetach');
  });
});

describe('groupControlPlaneComponentMessages', () => {
  it('keeps the lines when only one control plane component is reported or messages differ', () => {
    expect(groupControlPlaneComponentMessages(['* APIServerPodHealthy: x', '* Foo: y'])).toEqual([
      '* APIServerPodHealthy: x',
      '* Foo: y',
    ]);
    expect(groupControlPlaneComponentMessages(['* APIServerPodHealthy: x', '* SchedulerPodHealthy: z'])).toEqual([
      '* APIServerPodHealthy: x',
      '* SchedulerPodHealthy: z',
    ]);
  });
  it('counts EtcdPodHealthy as a control plane component', () => {
    expect(groupControlPlaneComponentMessages(['* SchedulerPodHealthy: down', '* EtcdPodHealthy: down'])).toEqual([
      '* Control plane components: down',
    ]);
  });
});
