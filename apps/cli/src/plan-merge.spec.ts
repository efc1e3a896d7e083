import type { KubeObject } from '@capi/apimachinery';
import { mergeOverLive } from './plan-merge';

const live: KubeObject & { spec: Record<string, unknown> } = {
  apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2',
  kind: 'KubeadmControlPlane',
  metadata: { name: 'cp', namespace: 'ns', labels: { 'cluster.x-k8s.io/cluster-name': 'c1' }, annotations: { a: '1' } },
  spec: { replicas: 3, version: 'v1.30.0' },
};

describe('mergeOverLive', () => {
  it('keeps the labels and annotations FILE leaves out, and the spec fields it does not set', () => {
    const merged = mergeOverLive(live, {
      ...live,
      metadata: { name: 'cp' },
      spec: { version: 'v1.31.0' },
    } as KubeObject);
    expect(merged.metadata.labels).toEqual({ 'cluster.x-k8s.io/cluster-name': 'c1' });
    expect(merged.metadata.annotations).toEqual({ a: '1' });
    expect(merged.spec).toEqual({ replicas: 3, version: 'v1.31.0' });
  });

  it('merges the labels FILE sets, and a null removes one', () => {
    const change = { ...live, metadata: { name: 'cp', labels: { x: 'y', 'cluster.x-k8s.io/cluster-name': null } } };
    const merged = mergeOverLive(live, change as unknown as KubeObject);
    expect(merged.metadata.labels).toEqual({ x: 'y' });
  });
});
