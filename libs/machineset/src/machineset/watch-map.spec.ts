import type { KubeObject } from '@capi/controller-runtime';
import { clusterPausedTransitions } from './watch-map';

const cluster = (paused?: boolean, rv = '1'): KubeObject => ({
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'Cluster',
  metadata: { name: 'c1', resourceVersion: rv },
  spec: paused === undefined ? {} : { paused },
});

describe('clusterPausedTransitions', () => {
  it('lets through only updates that flip spec.paused', () => {
    expect(clusterPausedTransitions.update?.(cluster(true), cluster(false, '2'))).toBe(true);
    expect(clusterPausedTransitions.update?.(cluster(undefined), cluster(true, '2'))).toBe(true);
    expect(clusterPausedTransitions.update?.(cluster(false), cluster(undefined, '2'))).toBe(false);
    expect(clusterPausedTransitions.update?.(cluster(true), cluster(true, '2'))).toBe(false);
    expect(clusterPausedTransitions.create?.(cluster(true))).toBe(false);
    expect(clusterPausedTransitions.delete?.(cluster(true))).toBe(false);
  });
});
