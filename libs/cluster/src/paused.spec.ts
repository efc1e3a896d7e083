// upstream util/paused EnsurePausedCondition with the Cluster as the object.
import type { Cluster } from '@capi/api';
import { decidePaused } from './paused';

const c = (o: { paused?: boolean; annotation?: boolean; condition?: object; generation?: number }): Cluster =>
  ({
    metadata: {
      name: 'c',
      generation: o.generation ?? 2,
      ...(o.annotation ? { annotations: { 'cluster.x-k8s.io/paused': '' } } : {}),
    },
    spec: { paused: o.paused },
    status: o.condition ? { conditions: [{ type: 'Paused', lastTransitionTime: 't', ...o.condition }] } : {},
  }) as Cluster;

describe('decidePaused', () => {
  it('spec.paused and the annotation: both named, True/Paused', () => {
    const d = decidePaused(c({ paused: true, annotation: true }));
    expect(d.paused).toBe(true);
    expect(d.condition).toEqual({
      type: 'Paused',
      status: 'True',
      reason: 'Paused',
      message: 'Cluster spec.paused is set to true, Cluster has the cluster.x-k8s.io/paused annotation',
      observedGeneration: 2,
    });
    expect(d.changed).toBe(true);
  });

  it('not paused, no condition yet: False/NotPaused, written first', () => {
    const d = decidePaused(c({}));
    expect(d).toMatchObject({ paused: false, changed: true, condition: { status: 'False', reason: 'NotPaused' } });
  });

  it('not paused and only observedGeneration moved: not a change that ends the reconcile', () => {
    const d = decidePaused(c({ condition: { status: 'False', reason: 'NotPaused', observedGeneration: 1 } }));
    expect(d.changed).toBe(false);
  });

  it('paused, unchanged: nothing to write', () => {
    const cond = {
      status: 'True',
      reason: 'Paused',
      message: 'Cluster spec.paused is set to true',
      observedGeneration: 2,
    };
    expect(decidePaused(c({ paused: true, condition: cond }))).toMatchObject({ paused: true, changed: false });
  });
});
