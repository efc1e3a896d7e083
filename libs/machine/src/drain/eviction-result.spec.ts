// Upstream drain/drain_test.go TestEvictionResult_ConditionMessage (all cases), TestEvictPods' partitioning (which
// Pods are evicted now, later, waited for, ignored) and its eviction errors; the evictions themselves run against an
// API server in test/drain.envtest.spec.ts.
import { ApiError } from '@capi/controller-runtime';
import type { PodDelete, PodDeleteStatus, PodObject } from './filters';
import {
  conditionMessage,
  drainCompleted,
  emptyEvictionResult,
  evictionOutcome,
  NAMESPACE_TERMINATING_EVICTION_MESSAGE,
  planEviction,
  type EvictionResult,
} from './eviction-result';

const p = (name: string, deleting = false): PodObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
});
const pods = (...names: string[]) => names.map((n) => p(n));
const result = (over: Partial<EvictionResult>): EvictionResult => ({ ...emptyEvictionResult(), ...over });
const START = '2024-10-09T16:13:59Z';

describe('conditionMessage (upstream TestEvictionResult_ConditionMessage)', () => {
  it('Compute no condition message correctly', () => {
    expect(drainCompleted(emptyEvictionResult())).toBe(true);
    expect(conditionMessage(emptyEvictionResult(), START)).toBe('');
  });

  it('Compute short condition message correctly', () => {
    const r = result({
      podsDeletionTimestampSet: pods('pod-2-deletionTimestamp-set-1', 'pod-3-to-trigger-eviction-successfully-1'),
      podsFailedEviction: new Map([
        [
          "Cannot evict pod as it would violate the pod's disruption budget. The disruption budget pod-5-pdb needs 20 healthy pods and has 20 currently",
          pods('pod-5-to-trigger-eviction-pdb-violated-1'),
        ],
        ['some other error 1', pods('pod-6-to-trigger-eviction-some-other-error')],
      ]),
      podsToTriggerEvictionLater: pods('pod-7-eviction-later', 'pod-8-eviction-later'),
    });
    expect(drainCompleted(r)).toBe(false);
    expect(conditionMessage(r, START)).toBe(`Drain not completed yet (started at 2024-10-09T16:13:59Z):
* Pods pod-2-deletionTimestamp-set-1, pod-3-to-trigger-eviction-successfully-1: deletionTimestamp set, but still not removed from the Node
* Pod pod-5-to-trigger-eviction-pdb-violated-1: cannot evict pod as it would violate the pod's disruption budget. The disruption budget pod-5-pdb needs 20 healthy pods and has 20 currently
* Pod pod-6-to-trigger-eviction-some-other-error: failed to evict Pod, some other error 1
After above Pods have been removed from the Node, the following Pods will be evicted: pod-7-eviction-later, pod-8-eviction-later`);
  });

  it('Compute long condition message correctly', () => {
    const r = result({
      podsIgnored: pods('pod-1-ignored-should-not-be-included'),
      podsDeletionTimestampSet: pods(
        'pod-2-deletionTimestamp-set-1',
        'pod-2-deletionTimestamp-set-2',
        'pod-2-deletionTimestamp-set-3',
        'pod-3-to-trigger-eviction-successfully-1',
        'pod-3-to-trigger-eviction-successfully-2',
        'pod-3-to-trigger-eviction-successfully-3-should-not-be-included',
        'pod-3-to-trigger-eviction-successfully-4-should-not-be-included',
      ),
      podsNotFound: pods('pod-4-to-trigger-eviction-pod-not-found-should-not-be-included'),
      podsFailedEviction: new Map([
        [
          "Cannot evict pod as it would violate the pod's disruption budget. The disruption budget pod-5-pdb needs 20 healthy pods and has 20 currently",
          pods(
            'pod-5-to-trigger-eviction-pdb-violated-1',
            'pod-5-to-trigger-eviction-pdb-violated-2',
            'pod-5-to-trigger-eviction-pdb-violated-3',
            'pod-5-to-trigger-eviction-pdb-violated-4-should-not-be-included',
            'pod-5-to-trigger-eviction-pdb-violated-5-should-not-be-included',
            'pod-5-to-trigger-eviction-pdb-violated-6-should-not-be-included',
          ),
        ],
        ['some other error 1', pods('pod-6-to-trigger-eviction-some-other-error')],
        ['some other error 2', pods('pod-7-to-trigger-eviction-some-other-error')],
        ['some other error 3', pods('pod-8-to-trigger-eviction-some-other-error')],
        ['some other error 4', pods('pod-9-to-trigger-eviction-some-other-error')],
        ['some other error 5 should not be included', pods('pod-10-to-trigger-eviction-some-other-error')],
      ]),
      podsToTriggerEvictionLater: pods(
        'pod-11-eviction-later',
        'pod-12-eviction-later',
        'pod-13-eviction-later',
        'pod-14-eviction-later',
        'pod-15-eviction-later',
      ),
      podsToWaitCompletedNow: pods('pod-16-wait-completed'),
      podsToWaitCompletedLater: pods('pod-17-wait-completed'),
    });
    expect(conditionMessage(r, START)).toBe(`Drain not completed yet (started at 2024-10-09T16:13:59Z):
* Pods pod-2-deletionTimestamp-set-1, pod-2-deletionTimestamp-set-2, pod-2-deletionTimestamp-set-3, ... (4 more): deletionTimestamp set, but still not removed from the Node
* Pods pod-5-to-trigger-eviction-pdb-violated-1, pod-5-to-trigger-eviction-pdb-violated-2, pod-5-to-trigger-eviction-pdb-violated-3, ... (3 more): cannot evict pod as it would violate the pod's disruption budget. The disruption budget pod-5-pdb needs 20 healthy pods and has 20 currently
* Pod pod-6-to-trigger-eviction-some-other-error: failed to evict Pod, some other error 1
* Pod pod-7-to-trigger-eviction-some-other-error: failed to evict Pod, some other error 2
* Pod pod-8-to-trigger-eviction-some-other-error: failed to evict Pod, some other error 3
* Pod pod-9-to-trigger-eviction-some-other-error: failed to evict Pod, some other error 4
* 1 Pod with other issues
* Pod pod-16-wait-completed: waiting for completion
After above Pods have been removed from the Node, the following Pods will be evicted: pod-11-eviction-later, pod-12-eviction-later, pod-13-eviction-later, ... (2 more)
After above Pods have been removed from the Node, waiting for the following Pods to complete without eviction: pod-17-wait-completed`);
  });

  it('Compute long condition message correctly with more skipped errors', () => {
    const r = result({
      podsFailedEviction: new Map([
        ['some other error 1', pods('pod-1-to-trigger-eviction-some-other-error')],
        ['some other error 2', pods('pod-2-to-trigger-eviction-some-other-error')],
        ['some other error 3', pods('pod-3-to-trigger-eviction-some-other-error')],
        ['some other error 4', pods('pod-4-to-trigger-eviction-some-other-error')],
        ['some other error 5', pods('pod-5-to-trigger-eviction-some-other-error')],
        [
          'some other error 6 should not be included',
          pods(
            'pod-6-to-trigger-eviction-some-other-error-1',
            'pod-6-to-trigger-eviction-some-other-error-2',
            'pod-6-to-trigger-eviction-some-other-error-3',
          ),
        ],
        ['some other error 7 should not be included', pods('pod-7-to-trigger-eviction-some-other-error')],
      ]),
    });
    expect(conditionMessage(r, START)).toBe(`Drain not completed yet (started at 2024-10-09T16:13:59Z):
* Pod pod-1-to-trigger-eviction-some-other-error: failed to evict Pod, some other error 1
* Pod pod-2-to-trigger-eviction-some-other-error: failed to evict Pod, some other error 2
* Pod pod-3-to-trigger-eviction-some-other-error: failed to evict Pod, some other error 3
* Pod pod-4-to-trigger-eviction-some-other-error: failed to evict Pod, some other error 4
* Pod pod-5-to-trigger-eviction-some-other-error: failed to evict Pod, some other error 5
* 4 Pods with other issues`);
  });

  it('names Pods with their namespace (klog.KObj)', () => {
    const r = result({ podsToWaitCompletedNow: [{ ...p('a'), metadata: { name: 'a', namespace: 'ns' } }] });
    expect(conditionMessage(r, START)).toBe(
      'Drain not completed yet (started at 2024-10-09T16:13:59Z):\n* Pod ns/a: waiting for completion',
    );
  });
});

describe('planEviction (upstream TestEvictPods partitioning)', () => {
  const drain = (order: number): PodDeleteStatus => ({ drainBehavior: 'Drain', drainOrder: order, reason: 'Okay' });
  const items = (minOrder: number): PodDelete[] => [
    { pod: p('pod-1-ignored'), status: { drainBehavior: 'Skip', reason: 'Warning', message: 'ignoring' } },
    { pod: p('pod-2-deletionTimestamp-set', true), status: drain(minOrder) },
    { pod: p('pod-3-to-trigger-eviction-successfully'), status: drain(minOrder) },
    { pod: p('pod-5-to-trigger-eviction-pdb-violated-2'), status: drain(minOrder) },
    { pod: p('pod-5-to-trigger-eviction-pdb-violated-1'), status: drain(minOrder) },
    { pod: p('pod-8-to-trigger-eviction-later'), status: drain(6) },
  ];
  const names = (pds: PodDelete[]) => pds.map((pd) => pd.pod.metadata.name);

  it('EvictPods correctly: the lowest order now (sorted by name), a higher order later', () => {
    const plan = planEviction(items(5));
    expect(names(plan.ignored)).toEqual(['pod-1-ignored']);
    expect(names(plan.withDeletionTimestamp)).toEqual(['pod-2-deletionTimestamp-set']);
    expect(names(plan.evictNow)).toEqual([
      'pod-3-to-trigger-eviction-successfully',
      'pod-5-to-trigger-eviction-pdb-violated-1',
      'pod-5-to-trigger-eviction-pdb-violated-2',
    ]);
    expect(names(plan.evictLater)).toEqual(['pod-8-to-trigger-eviction-later']);
    expect(plan.waitCompletedNow).toEqual([]);
  });

  it('EvictPods correctly with WaitCompleted pods: a WaitCompleted Pod of a higher order waits later', () => {
    const plan = planEviction([
      ...items(-5),
      {
        pod: p('pod-9-wait-completed'),
        status: { drainBehavior: 'WaitCompleted', drainOrder: 0, reason: 'WaitCompleted' },
      },
    ]);
    expect(names(plan.evictNow)).toHaveLength(3);
    expect(names(plan.evictLater)).toEqual(['pod-8-to-trigger-eviction-later']);
    expect(names(plan.waitCompletedNow)).toEqual([]);
    expect(names(plan.waitCompletedLater)).toEqual(['pod-9-wait-completed']);
  });

  it('a WaitCompleted Pod of the lowest order is waited for now; Pods of a deleting lower order hold the others', () => {
    const plan = planEviction([
      { pod: p('a', true), status: drain(-1) },
      { pod: p('b'), status: { drainBehavior: 'WaitCompleted', drainOrder: 0, reason: 'WaitCompleted' } },
      { pod: p('c'), status: drain(0) },
    ]);
    expect(names(plan.withDeletionTimestamp)).toEqual(['a']);
    expect(names(plan.waitCompletedLater)).toEqual(['b']);
    expect(names(plan.evictLater)).toEqual(['c']);
    const next = planEviction([
      { pod: p('b'), status: { drainBehavior: 'WaitCompleted', drainOrder: 0, reason: 'WaitCompleted' } },
      { pod: p('c'), status: drain(0) },
    ]);
    expect(names(next.waitCompletedNow)).toEqual(['b']);
    expect(names(next.evictNow)).toEqual(['c']);
  });
});

describe('evictionOutcome (upstream EvictPods error handling)', () => {
  const apiError = (code: number, status: ConstructorParameters<typeof ApiError>[1]) => new ApiError(code, status);

  it('success and not found', () => {
    expect(evictionOutcome(undefined)).toEqual({ kind: 'evicted' });
    expect(evictionOutcome(apiError(404, { reason: 'NotFound', message: 'pods "x" not found' }))).toEqual({
      kind: 'notFound',
    });
  });

  it('a PodDisruptionBudget (429): the message with its causes', () => {
    const err = apiError(429, {
      status: 'Failure',
      code: 429,
      reason: 'TooManyRequests',
      message: "Cannot evict pod as it would violate the pod's disruption budget.",
      details: {
        causes: [
          {
            reason: 'DisruptionBudget',
            message: 'The disruption budget pod-5-pdb needs 3 healthy pods and has 2 currently',
          },
        ],
      },
    });
    expect(evictionOutcome(err)).toEqual({
      kind: 'failed',
      message:
        "Cannot evict pod as it would violate the pod's disruption budget. The disruption budget pod-5-pdb needs 3 healthy pods and has 2 currently",
    });
  });

  it('a terminating namespace (403 with the NamespaceTerminating cause)', () => {
    const err = apiError(403, {
      reason: 'Forbidden',
      message:
        'pods "pod-6" is forbidden: unable to create new content in namespace test-namespace because it is being terminated',
      details: {
        name: 'pod-6',
        kind: 'pods',
        causes: [
          {
            reason: 'NamespaceTerminating',
            message: 'namespace test-namespace is being terminated',
            field: 'metadata.namespace',
          },
        ],
      },
    });
    expect(evictionOutcome(err)).toEqual({ kind: 'failed', message: NAMESPACE_TERMINATING_EVICTION_MESSAGE });
    expect(evictionOutcome(apiError(403, { reason: 'Forbidden', message: 'rbac says no' }))).toEqual({
      kind: 'failed',
      message: 'rbac says no',
    });
  });

  it('some other error: its message', () => {
    expect(evictionOutcome(apiError(400, { reason: 'BadRequest', message: 'some other error' }))).toEqual({
      kind: 'failed',
      message: 'some other error',
    });
    expect(evictionOutcome(new Error('connect ECONNREFUSED'))).toEqual({
      kind: 'failed',
      message: 'connect ECONNREFUSED',
    });
  });
});
