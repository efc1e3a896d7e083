import { PENDING_HOOKS_ANNOTATION, UPDATE_IN_PROGRESS_ANNOTATION } from './constants';
import { cleanupMachineSpecForDiff, isUpdateInProgress, reduceObjectForHook } from './inplace';
import type { MachineSpec } from './types/machine';

describe('isUpdateInProgress', () => {
  it('is true with the update-in-progress annotation (empty value)', () => {
    expect(isUpdateInProgress({ metadata: { annotations: { [UPDATE_IN_PROGRESS_ANNOTATION]: '' } } })).toBe(true);
  });
  it('is true when UpdateMachine is pending', () => {
    expect(
      isUpdateInProgress({ metadata: { annotations: { [PENDING_HOOKS_ANNOTATION]: 'Other,UpdateMachine' } } }),
    ).toBe(true);
  });
  it('is false otherwise', () => {
    expect(isUpdateInProgress({ metadata: { annotations: { [PENDING_HOOKS_ANNOTATION]: 'Other' } } })).toBe(false);
    expect(isUpdateInProgress({ metadata: {} })).toBe(false);
  });
});

describe('cleanupMachineSpecForDiff', () => {
  const spec: MachineSpec = {
    clusterName: 'c',
    bootstrap: { configRef: { apiGroup: 'bootstrap.cluster.x-k8s.io', kind: 'KubeadmConfig', name: 'k' } },
    infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'DockerMachine', name: 'd' },
    version: 'v1.31.0',
    providerID: 'docker:///x',
    failureDomain: 'fd1',
    minReadySeconds: 5,
    readinessGates: [{ conditionType: 'X' }],
    deletion: { nodeDrainTimeoutSeconds: 1, nodeVolumeDetachTimeoutSeconds: 2, nodeDeletionTimeoutSeconds: 3 },
    taints: [{ key: 'k', effect: 'NoSchedule', propagation: 'Always' }],
  };
  it('keeps only fields an extension must cover', () => {
    expect(cleanupMachineSpecForDiff(spec)).toEqual({ version: 'v1.31.0', failureDomain: 'fd1' });
  });
  it('does not mutate its input', () => {
    const copy = structuredClone(spec);
    cleanupMachineSpecForDiff(spec);
    expect(spec).toEqual(copy);
  });
  it('makes specs differing only in identity fields equal, but not ones differing in version', () => {
    const other = {
      ...structuredClone(spec),
      clusterName: 'x',
      providerID: 'y',
      infrastructureRef: { ...spec.infrastructureRef, name: 'd2' },
    };
    expect(cleanupMachineSpecForDiff(other)).toEqual(cleanupMachineSpecForDiff(spec));
    expect(cleanupMachineSpecForDiff({ ...spec, version: 'v1.32.0' })).not.toEqual(cleanupMachineSpecForDiff(spec));
  });
});

describe('reduceObjectForHook', () => {
  const obj = {
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
    kind: 'DockerMachine',
    metadata: {
      name: 'd',
      namespace: 'ns',
      uid: 'u',
      resourceVersion: '5',
      labels: { a: 'b' },
      annotations: { c: 'd' },
      finalizers: ['f'],
      managedFields: [{}],
    },
    spec: { image: 'x', nested: { a: 1 } },
    status: { ready: true },
  };
  it('keeps apiVersion, kind, name, namespace, labels, annotations and spec only', () => {
    expect(reduceObjectForHook(obj)).toEqual({
      apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
      kind: 'DockerMachine',
      metadata: { name: 'd', namespace: 'ns', labels: { a: 'b' }, annotations: { c: 'd' } },
      spec: { image: 'x', nested: { a: 1 } },
    });
  });
  it('deep-copies and applies the given GVK', () => {
    const r = reduceObjectForHook(obj, { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Machine' });
    expect(r.apiVersion).toBe('cluster.x-k8s.io/v1beta2');
    (r.spec as { nested: { a: number } }).nested.a = 2;
    expect(obj.spec.nested.a).toBe(1);
  });
  it('rejects an object without GVK', () => {
    expect(() => reduceObjectForHook({ metadata: {} })).toThrow(/no apiVersion\/kind/);
  });
});
