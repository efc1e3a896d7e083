// Upstream drain/filters_test.go TestSkipDeletedFilter, plus the filter order of filterPods (the full table of
// drain_test.go TestGetPodsForEviction runs against an API server in test/drain.envtest.spec.ts).
import {
  DAEMON_SET_ORPHANED_WARNING,
  filterPods,
  LOCAL_STORAGE_WARNING,
  PodDeleteList,
  skipDeletedFilter,
  type FilterInput,
  type PodObject,
} from './filters';

const NOW = Date.parse('2026-01-01T00:10:00Z');
const input = (over: Partial<FilterInput> = {}): FilterInput => ({
  nowMs: NOW,
  skipWaitForDeleteTimeoutSeconds: 0,
  daemonSets: new Map(),
  namespaces: new Map([['default', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } }]]),
  rules: [],
  ...over,
});
const pod = (name: string, over: Partial<PodObject['metadata']> = {}, spec: PodObject['spec'] = {}): PodObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', ...over },
  spec,
  status: { phase: 'Running' },
});

describe('skipDeletedFilter (upstream TestSkipDeletedFilter)', () => {
  it.each([
    [0, 20, 'Drain'],
    [1, 20, 'Drain'],
    [100, 20, 'Skip'],
  ])('deletionTimestamp %ss ago, skip after %ss: %s', (age, skip, behavior) => {
    const p = pod('pod', age > 0 ? { deletionTimestamp: new Date(NOW - age * 1000).toISOString() } : {});
    expect(skipDeletedFilter(p, input({ skipWaitForDeleteTimeoutSeconds: skip })).drainBehavior).toBe(behavior);
  });

  it('never skips without a timeout, and counts whole seconds (strictly more than the timeout)', () => {
    const old = pod('pod', { deletionTimestamp: new Date(NOW - 3600_000).toISOString() });
    expect(skipDeletedFilter(old, input()).drainBehavior).toBe('Drain');
    const at = (ms: number) => pod('pod', { deletionTimestamp: new Date(NOW - ms).toISOString() });
    expect(skipDeletedFilter(at(1999), input({ skipWaitForDeleteTimeoutSeconds: 1 })).drainBehavior).toBe('Drain');
    expect(skipDeletedFilter(at(2000), input({ skipWaitForDeleteTimeoutSeconds: 1 })).drainBehavior).toBe('Skip');
  });
});

describe('filterPods', () => {
  it('joins the warnings of all filters when the Pod is drained; the first Skip decides', () => {
    const orphan = pod(
      'orphan',
      { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'gone', uid: 'u', controller: true }] },
      { volumes: [{ name: 'scratch', emptyDir: {} }] },
    );
    const skipped = pod('skipped', { labels: { 'cluster.x-k8s.io/drain': 'skip' } });
    const list = filterPods([orphan, skipped], input({ daemonSets: new Map([['default/gone', { exists: false }]]) }));
    expect(list.items.map((i) => i.status)).toEqual([
      {
        drainBehavior: 'Drain',
        drainOrder: 0,
        reason: 'Warning',
        message: `${DAEMON_SET_ORPHANED_WARNING}, ${LOCAL_STORAGE_WARNING}`,
      },
      { drainBehavior: 'Skip', reason: 'Skip' },
    ]);
    expect(list.pods().map((p) => p.metadata.name)).toEqual(['orphan']);
    expect(list.skippedPods().map((p) => p.metadata.name)).toEqual(['skipped']);
  });

  it('reports one error per message with the Pods it concerns', () => {
    const list = new PodDeleteList([
      { pod: pod('a', { namespace: 'x' }), status: { reason: 'Error', message: 'Pod Namespace does not exist' } },
      { pod: pod('b', { namespace: 'x' }), status: { reason: 'Error', message: 'Pod Namespace does not exist' } },
      { pod: pod('c'), status: { reason: 'Error' } },
    ]);
    expect(list.errors().map((e) => e.message)).toEqual([
      'Pods with error "Pod Namespace does not exist": x/a, x/b',
      'Pods with error "unexpected error": default/c',
    ]);
  });
});
