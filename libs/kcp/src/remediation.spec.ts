import { UPDATE_IN_PROGRESS_ANNOTATION, type Condition, type KubeadmControlPlane, type Machine } from '@capi/api';
import type { ControlPlaneMachine } from './decide';
import { computeDesiredMachine } from './desired';
import {
  canSafelyRemoveEtcdMember,
  checkRetryLimits,
  decideRemediation,
  lastRemediation,
  parseRemediationData,
  remediatingCondition,
  selectMachineToRemediate,
  type RemediationDecision,
} from './remediation';
import { kcp as kcpFixture, machine } from './testing/fixtures';

const NOW = new Date('2026-03-01T12:00:00Z');
const IN_PROGRESS = 'controlplane.cluster.x-k8s.io/remediation-in-progress';
const REMEDIATION_FOR = 'controlplane.cluster.x-k8s.io/remediation-for';

const cond = (type: string, status: 'True' | 'False', reason: string, message?: string): Condition => ({
  type,
  status,
  reason,
  message,
  lastTransitionTime: '2026-03-01T11:00:00Z',
});
const MARKED = [
  cond('HealthCheckSucceeded', 'False', 'UnhealthyNode', 'Node not ready'),
  cond('OwnerRemediated', 'False', 'WaitingForRemediation', 'Waiting for remediation'),
];

interface Opts {
  created?: string;
  marked?: boolean;
  conditions?: Condition[];
  healthy?: boolean;
  nodeRef?: boolean;
  deleting?: boolean;
  annotations?: Record<string, string>;
}
function cpm(name: string, o: Opts = {}): ControlPlaneMachine {
  const m: Machine = machine(name, {
    created: o.created,
    nodeRef: o.nodeRef,
    deleting: o.deleting,
    annotations: o.annotations,
  });
  const conditions = [...(o.marked ? MARKED : []), ...(o.conditions ?? [])];
  if (conditions.length) m.status = { ...(m.status ?? {}), conditions };
  return {
    machine: m,
    upToDate: true,
    eligibleForInPlaceUpdate: false,
    nodeHealthy: o.nodeRef === false ? undefined : (o.healthy ?? true),
  };
}

function initializedKcp(
  spec: Partial<KubeadmControlPlane['spec']> = {},
  annotations?: Record<string, string>,
): KubeadmControlPlane {
  const k = kcpFixture(spec);
  k.status = { initialization: { controlPlaneInitialized: true } };
  if (annotations) k.metadata.annotations = annotations;
  return k;
}

const decide = (k: KubeadmControlPlane, machines: ControlPlaneMachine[]): RemediationDecision =>
  decideRemediation({ kcp: k, machines, now: NOW });
const three = (a: Opts = {}, b: Opts = {}, c: Opts = {}) => [
  cpm('a', { created: '2026-01-01T00:00:00Z', ...a }),
  cpm('b', { created: '2026-01-02T00:00:00Z', ...b }),
  cpm('c', { created: '2026-01-03T00:00:00Z', ...c }),
];

describe('decideRemediation', () => {
  it('does nothing without Machines to remediate (HealthCheckSucceeded=False alone is not enough)', () => {
    expect(decide(initializedKcp(), three()).action).toEqual({ type: 'none' });
    const onlyUnhealthy = three({ conditions: [cond('HealthCheckSucceeded', 'False', 'UnhealthyNode')] });
    expect(decide(initializedKcp(), onlyUnhealthy).action).toEqual({ type: 'none' });
  });

  it('remediates a marked Machine of 3 when the other 2 are healthy, with fresh retry data', () => {
    const d = decide(initializedKcp(), three({}, { marked: true }));
    expect(d.action).toEqual({
      type: 'remediate',
      machine: 'b',
      data: { machine: 'b', timestamp: '2026-03-01T12:00:00Z', retryCount: 0 },
    });
  });

  it('never loses etcd quorum: with 3, a second unhealthy Machine blocks (marked or Node not ready)', () => {
    const both = decide(initializedKcp(), three({ marked: true }, { marked: true }));
    expect(both.action).toMatchObject({
      type: 'block',
      machine: 'a',
      condition: { reason: 'CannotBeRemediated', message: expect.stringContaining('etcd losing quorum') },
    });
    const notReady = decide(initializedKcp(), three({ marked: true }, { healthy: false }));
    expect(notReady.action).toMatchObject({ type: 'block', condition: { reason: 'CannotBeRemediated' } });
  });

  it('with 5 Machines tolerates one more unhealthy member', () => {
    const five = [...three({ marked: true }, { healthy: false }), cpm('d'), cpm('e')];
    expect(decide(initializedKcp({ replicas: 5 }), five).action).toMatchObject({ type: 'remediate', machine: 'a' });
  });

  it('blocks with one Machine once initialized, but remediates a failed first Machine before initialization', () => {
    expect(decide(initializedKcp({ replicas: 1 }), [cpm('a', { marked: true })]).action).toMatchObject({
      type: 'block',
      condition: {
        reason: 'CannotBeRemediated',
        message: "KCP can't remediate if current replicas are less or equal to 1",
      },
    });
    const notInitialized = kcpFixture({ replicas: 1 });
    expect(decide(notInitialized, [cpm('a', { marked: true, nodeRef: false })]).action).toMatchObject({
      type: 'remediate',
      machine: 'a',
    });
  });

  it('defers while another Machine is provisioning, deleting or updating in place', () => {
    const provisioning = decide(initializedKcp(), three({}, { marked: true }, { nodeRef: false }));
    expect(provisioning.action).toMatchObject({
      type: 'block',
      condition: { reason: 'RemediationDeferred', message: expect.stringContaining('provisioning') },
    });
    const deleting = decide(initializedKcp(), three({ deleting: true }, { marked: true }));
    expect(deleting.action).toMatchObject({
      type: 'block',
      condition: { reason: 'RemediationDeferred', message: expect.stringContaining('deletion') },
    });
    const updating = decide(
      initializedKcp(),
      three({ annotations: { [UPDATE_IN_PROGRESS_ANNOTATION]: '' } }, { marked: true }),
    );
    expect(updating.action).toMatchObject({
      type: 'block',
      condition: { reason: 'RemediationDeferred', message: expect.stringContaining('in-place update') },
    });
  });

  it('remediates a Machine that is itself stuck updating in place', () => {
    const d = decide(
      initializedKcp(),
      three({}, { marked: true, annotations: { [UPDATE_IN_PROGRESS_ANNOTATION]: '' } }),
    );
    expect(d.action).toMatchObject({ type: 'remediate', machine: 'b' });
  });

  it('prefers the oldest marked Machine without a Node, else the oldest marked; waits while it is deleting', () => {
    const marked = [
      cpm('a', { created: '2026-01-01T00:00:00Z', marked: true }),
      cpm('b', { created: '2026-01-02T00:00:00Z', marked: true, nodeRef: false }),
    ];
    expect(selectMachineToRemediate(marked.map((m) => m.machine))?.metadata.name).toBe('b');
    expect(selectMachineToRemediate([marked[0].machine])?.metadata.name).toBe('a');
    expect(decide(initializedKcp(), three({ marked: true, deleting: true }, { marked: true })).action).toMatchObject({
      type: 'wait',
      machine: 'a',
    });
  });

  it('one at a time: waits while another remediation is in progress, clears a stale annotation', () => {
    const inProgress = {
      [IN_PROGRESS]: JSON.stringify({ machine: 'x', timestamp: '2026-02-01T00:00:00Z', retryCount: 0 }),
    };
    const waiting = decide(initializedKcp({}, inProgress), three({}, { marked: true }));
    expect(waiting.action).toMatchObject({ type: 'wait', machine: 'b', why: expect.stringContaining('Machine x') });
    expect(waiting.clearStaleAnnotation).toBe(false);
    // c was created after the remediation: the replacement exists, the annotation is stale.
    const stale = decide(
      initializedKcp({}, inProgress),
      three({}, { marked: true }, { created: '2026-02-02T00:00:00Z' }),
    );
    expect(stale.clearStaleAnnotation).toBe(true);
    expect(stale.action).toMatchObject({ type: 'remediate', machine: 'b' });
  });

  it('reports an invalid in-progress annotation on the Machine instead of failing', () => {
    const d = decide(initializedKcp({}, { [IN_PROGRESS]: 'not json' }), three({}, { marked: true }));
    expect(d.action).toMatchObject({
      type: 'block',
      machine: 'b',
      condition: { reason: 'InternalError', message: expect.stringContaining(`invalid ${IN_PROGRESS} annotation`) },
    });
  });

  it("cleans up OwnerRemediated=False (KCP's or MHC's marker) once the Machine is healthy again, not while deleting", () => {
    const healthy = cond('HealthCheckSucceeded', 'True', 'HealthCheckSucceeded');
    const kcpReason = [healthy, cond('OwnerRemediated', 'False', 'RemediationDeferred', 'x')];
    const mhcMarker = [healthy, cond('OwnerRemediated', 'False', 'WaitingForRemediation')];
    const decision = decide(
      initializedKcp(),
      three({ conditions: kcpReason }, { conditions: mhcMarker }, { conditions: mhcMarker, deleting: true }),
    );
    expect(decision.cleanup).toEqual(['a', 'b']);
    expect(decision.action).toEqual({ type: 'none' });
  });
});

describe('checkRetryLimits', () => {
  const target = (last: object) => machine('r', { annotations: { [REMEDIATION_FOR]: JSON.stringify(last) } });
  const recent = { machine: 'old', timestamp: '2026-03-01T11:30:00Z', retryCount: 2 };

  it('no previous remediation, or one older than minHealthyPeriod: a new sequence', () => {
    expect(checkRetryLimits(kcpFixture(), machine('r'), NOW)).toEqual({
      data: { machine: 'r', timestamp: '2026-03-01T12:00:00Z', retryCount: 0 },
    });
    expect(
      checkRetryLimits(kcpFixture({ remediation: { minHealthyPeriodSeconds: 600 } }), target(recent), NOW).data
        .retryCount,
    ).toBe(0);
  });

  it('within minHealthyPeriod (default 1h) it is a retry: count carried and incremented', () => {
    expect(checkRetryLimits(kcpFixture(), target(recent), NOW)).toEqual({
      data: { machine: 'r', timestamp: '2026-03-01T12:00:00Z', retryCount: 3 },
    });
  });

  it('waits retryPeriodSeconds after the last remediation', () => {
    const r = checkRetryLimits(kcpFixture({ remediation: { retryPeriodSeconds: 3600 } }), target(recent), NOW);
    expect(r.blocked).toEqual({
      reason: 'RemediationDeferred',
      message:
        "KCP can't remediate this Machine because the operation already failed in the latest 3600s (RetryPeriod)",
    });
  });

  it('stops at maxRetry', () => {
    const r = checkRetryLimits(kcpFixture({ remediation: { maxRetry: 2 } }), target(recent), NOW);
    expect(r.blocked).toEqual({
      reason: 'CannotBeRemediated',
      message: "KCP can't remediate this Machine because the operation already failed 2 times (MaxRetry)",
    });
    expect(checkRetryLimits(kcpFixture({ remediation: { maxRetry: 3 } }), target(recent), NOW).blocked).toBeUndefined();
  });

  it('a missing timestamp counts as expired periods; bad JSON is a clear error', () => {
    expect(
      checkRetryLimits(kcpFixture({ remediation: { maxRetry: 0 } }), target({ machine: 'old', retryCount: 5 }), NOW)
        .blocked,
    ).toBeUndefined();
    expect(() =>
      checkRetryLimits(kcpFixture(), machine('r', { annotations: { [REMEDIATION_FOR]: '{' } }), NOW),
    ).toThrow(`invalid ${REMEDIATION_FOR} annotation`);
  });
});

describe('parseRemediationData', () => {
  it('accepts upstream JSON, rejects wrong shapes', () => {
    expect(parseRemediationData('k', '{"machine":"m","timestamp":"2026-01-01T00:00:00Z","retryCount":1}')).toEqual({
      machine: 'm',
      timestamp: '2026-01-01T00:00:00Z',
      retryCount: 1,
    });
    expect(() => parseRemediationData('k', '{"machine":1}')).toThrow('invalid k annotation');
    expect(() => parseRemediationData('k', '{"machine":"m","timestamp":"yesterday"}')).toThrow('not RFC 3339');
  });
});

describe('canSafelyRemoveEtcdMember', () => {
  it('counts only members with a Node; the remaining majority must be healthy', () => {
    expect(canSafelyRemoveEtcdMember(three(), 'a')).toBe(true);
    expect(canSafelyRemoveEtcdMember(three({}, { healthy: false }), 'a')).toBe(false);
    // A Machine without a Node is no member: removing it from 2 leaves the one healthy member.
    expect(canSafelyRemoveEtcdMember([cpm('a'), cpm('b', { nodeRef: false })], 'b')).toBe(true);
  });
});

describe('KCP status for remediation', () => {
  it('Remediating aggregates OwnerRemediated of the Machines to remediate, else lists unhealthy ones', () => {
    const ms = three({ marked: true }).map((m) => m.machine);
    expect(remediatingCondition(ms)).toEqual({
      type: 'Remediating',
      status: 'True',
      reason: 'Remediating',
      message: '* Machine a: Waiting for remediation',
    });
    const unhealthyOnly = three({ conditions: [cond('HealthCheckSucceeded', 'False', 'UnhealthyNode')] }).map(
      (m) => m.machine,
    );
    expect(remediatingCondition(unhealthyOnly)).toMatchObject({
      status: 'False',
      reason: 'NotRemediating',
      message: 'Machine a is not healthy (not to be remediated by KubeadmControlPlane)',
    });
    expect(remediatingCondition(three().map((m) => m.machine))).toEqual({
      type: 'Remediating',
      status: 'False',
      reason: 'NotRemediating',
      message: undefined,
    });
  });

  it('lastRemediation: in-progress annotation first, else the newest remediation-for, else unchanged', () => {
    const data = (machine: string, timestamp: string, retryCount = 0) =>
      JSON.stringify({ machine, timestamp, retryCount });
    const k = initializedKcp({}, { [IN_PROGRESS]: data('x', '2026-02-03T00:00:00Z', 1) });
    expect(lastRemediation(k, [])).toEqual({ machine: 'x', time: '2026-02-03T00:00:00Z', retryCount: 1 });
    const ms = [
      machine('n1', { annotations: { [REMEDIATION_FOR]: data('y', '2026-02-01T00:00:00Z') } }),
      machine('n2', { annotations: { [REMEDIATION_FOR]: data('z', '2026-02-02T00:00:00Z') } }),
    ];
    expect(lastRemediation(initializedKcp(), ms)).toEqual({
      machine: 'z',
      time: '2026-02-02T00:00:00Z',
      retryCount: 0,
    });
    const kept = initializedKcp();
    kept.status!.lastRemediation = { machine: 'w', time: '2026-01-01T00:00:00Z', retryCount: 0 };
    expect(lastRemediation(kept, [machine('plain')])).toEqual(kept.status!.lastRemediation);
    // Two remediations in the same second: the one reported while it was in progress stays, whatever the list order.
    const sameSecond = [
      machine('n3', { annotations: { [REMEDIATION_FOR]: data('p', '2026-02-05T00:00:00Z') } }),
      machine('n4', { annotations: { [REMEDIATION_FOR]: data('q', '2026-02-05T00:00:00Z') } }),
    ];
    const reported = initializedKcp();
    reported.status!.lastRemediation = { machine: 'q', time: '2026-02-05T00:00:00Z', retryCount: 0 };
    expect(lastRemediation(reported, sameSecond)).toEqual(reported.status!.lastRemediation);
    expect(lastRemediation(reported, [...sameSecond].reverse())).toEqual(reported.status!.lastRemediation);
  });
});

describe('remediation-for on Machines', () => {
  it('a replacement gets it at creation; desired state of an existing Machine keeps it (in-place applies must not drop it)', () => {
    const k = kcpFixture();
    const refs = {
      infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'InMemoryMachine', name: 'n' },
    };
    const created = computeDesiredMachine({
      kcp: k,
      clusterName: 'c1',
      name: 'n',
      ...refs,
      remediationFor: '{"machine":"old"}',
    });
    expect(created.metadata.annotations?.[REMEDIATION_FOR]).toBe('{"machine":"old"}');
    const existing = machine('e', { annotations: { [REMEDIATION_FOR]: '{"machine":"prev"}' } });
    expect(computeDesiredMachine({ kcp: k, clusterName: 'c1', existing }).metadata.annotations?.[REMEDIATION_FOR]).toBe(
      '{"machine":"prev"}',
    );
    expect(
      computeDesiredMachine({ kcp: k, clusterName: 'c1', existing: machine('plain') }).metadata.annotations,
    ).not.toHaveProperty(REMEDIATION_FOR);
  });
});
