// rest.BeforeDelete with the pod strategy (kubernetes staging/src/k8s.io/apiserver/pkg/registry/rest/delete.go,
// pkg/registry/core/pod/strategy.go CheckGracefulDelete; pkg/registry/core/pod/strategy_test.go TestCheckGracefulDelete).
import type { KubeObject } from '@capi/apimachinery';
import { podBeforeDelete, podGracePeriod } from './pod-deletion';

const NOW = new Date('2026-01-01T00:00:00Z');
const pod = (spec: object = {}, phase = 'Running', meta: object = {}): KubeObject =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default', generation: 1, ...meta },
    spec: { nodeName: 'n1', containers: [], ...spec },
    status: { phase },
  }) as KubeObject;

describe('podGracePeriod (TestCheckGracefulDelete)', () => {
  it.each([
    ['in pending phase with has node name', { terminationGracePeriodSeconds: 30 }, 'Pending', undefined, 30],
    ['in failed phase', { terminationGracePeriodSeconds: 30 }, 'Failed', undefined, 0],
    ['in failed phase with no node', { nodeName: '' }, 'Failed', undefined, 0],
    ['in succeeded phase', { terminationGracePeriodSeconds: 30 }, 'Succeeded', undefined, 0],
    ['no phase', { terminationGracePeriodSeconds: 30 }, '', undefined, 30],
    ['has negative grace period', { terminationGracePeriodSeconds: -1 }, 'Running', undefined, 1],
    ['not bound to a node', { nodeName: undefined }, 'Running', undefined, 0],
    ['DeleteOptions win over the spec', { terminationGracePeriodSeconds: 30 }, 'Running', 5, 5],
    ['no spec value: kube defaults it to 30', {}, 'Running', undefined, 30],
  ])('%s', (_name, spec, phase, requested, want) => {
    expect(podGracePeriod(pod(spec, phase), requested)).toBe(want);
  });
});

describe('podBeforeDelete', () => {
  it('a first graceful delete: deadline now + grace, generation bumped', () => {
    const d = podBeforeDelete(pod({ terminationGracePeriodSeconds: 10 }), undefined, NOW);
    expect(d.kind).toBe('graceful');
    if (d.kind !== 'graceful') return;
    expect(d.grace).toBe(10);
    expect(d.obj.metadata).toMatchObject({
      deletionTimestamp: '2026-01-01T00:00:10Z',
      deletionGracePeriodSeconds: 10,
      generation: 2,
    });
  });

  it('already terminating: only a shorter grace period moves the deadline', () => {
    const terminating = pod({}, 'Running', {
      deletionTimestamp: '2026-01-01T00:00:30Z',
      deletionGracePeriodSeconds: 30,
    });
    expect(podBeforeDelete(terminating, undefined, NOW).kind).toBe('pending');
    expect(podBeforeDelete(terminating, 30, NOW).kind).toBe('pending');
    const d = podBeforeDelete(terminating, 5, NOW);
    expect(d.kind === 'graceful' && d.obj.metadata).toMatchObject({
      deletionTimestamp: '2026-01-01T00:00:05Z',
      deletionGracePeriodSeconds: 5,
      generation: 1,
    });
    expect(podBeforeDelete(terminating, -3, NOW)).toMatchObject({ kind: 'graceful', grace: 1 });
  });

  it('already terminating with grace 0 (or none): delete now', () => {
    expect(
      podBeforeDelete(pod({}, 'Running', { deletionTimestamp: 'x', deletionGracePeriodSeconds: 0 }), 10, NOW),
    ).toEqual({
      kind: 'immediate',
    });
    expect(podBeforeDelete(pod({}, 'Running', { deletionTimestamp: 'x' }), undefined, NOW)).toEqual({
      kind: 'immediate',
    });
  });
});
