import { labelsAndAnnotationsIntent } from './metadata-sync';

describe('labelsAndAnnotationsIntent', () => {
  const current = {
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2',
    kind: 'TestMachine',
    metadata: { name: 'm', namespace: 'ns', uid: 'u1', resourceVersion: '7', annotations: { other: 'x' } },
    spec: { image: 'v1' },
  };
  it('carries only the labels and annotations, with the uid pinned', () => {
    expect(labelsAndAnnotationsIntent(current, { a: '1' }, { b: '2' })).toEqual({
      apiVersion: current.apiVersion,
      kind: 'TestMachine',
      metadata: { name: 'm', namespace: 'ns', uid: 'u1', labels: { a: '1' }, annotations: { b: '2' } },
    });
  });
  // Upstream sets them with unstructured SetLabels / SetAnnotations, which remove the field for an empty map.
  it('leaves an empty map out instead of owning the whole map', () => {
    expect(labelsAndAnnotationsIntent(current, { a: '1' }, {}).metadata).toEqual({
      name: 'm',
      namespace: 'ns',
      uid: 'u1',
      labels: { a: '1' },
    });
    expect(labelsAndAnnotationsIntent(current, {}, {}).metadata).toEqual({ name: 'm', namespace: 'ns', uid: 'u1' });
  });
});
