import { canonicalJson, fnv32a } from '@capi/apimachinery';
import { computeRequestIdentifier, gvkString, hashObject } from './identifier';
import { prepareModified, InvalidApplyIntentError } from './prepare';

const machine = () => ({
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'Machine',
  metadata: { name: 'm1', namespace: 'ns', labels: { a: '1' } },
  spec: { clusterName: 'c', version: 'v1.31.0' },
});

describe('request identifier', () => {
  it('has the upstream shape <GVK>.<ns/name>.<rv>.<hash>', () => {
    const id = computeRequestIdentifier('42', machine());
    expect(id).toMatch(/^cluster\.x-k8s\.io\/v1beta2, Kind=Machine\.ns\/m1\.42\.\d+$/);
    expect(gvkString({ apiVersion: 'v1', kind: 'ConfigMap' })).toBe('/v1, Kind=ConfigMap');
    expect(computeRequestIdentifier('1', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x' } })).toMatch(
      /^\/v1, Kind=Namespace\.x\.1\./,
    );
  });

  it('changes with GVK, namespace, name, resourceVersion and intent content', () => {
    const base = computeRequestIdentifier('42', machine());
    const variants = [
      computeRequestIdentifier('42', { ...machine(), apiVersion: 'cluster.x-k8s.io/v1beta1' }),
      computeRequestIdentifier('42', { ...machine(), kind: 'MachineSet' }),
      computeRequestIdentifier('42', { ...machine(), metadata: { ...machine().metadata, namespace: 'other' } }),
      computeRequestIdentifier('42', { ...machine(), metadata: { ...machine().metadata, name: 'm2' } }),
      computeRequestIdentifier('43', machine()),
      computeRequestIdentifier('42', { ...machine(), spec: { clusterName: 'c', version: 'v1.32.0' } }),
      computeRequestIdentifier('42', { ...machine(), metadata: { ...machine().metadata, labels: { a: '2' } } }),
    ];
    for (const v of variants) expect(v).not.toBe(base);
    expect(new Set(variants).size).toBe(variants.length);
  });

  it('is deterministic and independent of key order', () => {
    const a = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'x', namespace: 'n' },
      data: { b: '2', a: '1' },
    };
    const b = {
      kind: 'ConfigMap',
      data: { a: '1', b: '2' },
      metadata: { namespace: 'n', name: 'x' },
      apiVersion: 'v1',
    };
    expect(computeRequestIdentifier('5', a)).toBe(computeRequestIdentifier('5', b));
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(hashObject({ list: [1, 2] })).not.toBe(hashObject({ list: [2, 1] }));
  });

  it('fnv32a matches the FNV-1a test vectors', () => {
    expect(fnv32a('')).toBe(0x811c9dc5);
    expect(fnv32a('a')).toBe(0xe40c292c);
    expect(fnv32a('foobar')).toBe(0xbf9cf968);
    expect(fnv32a('é')).toBe(0x1e9de8c1); // UTF-8 bytes c3 a9
    expect(fnv32a('é')).not.toBe(fnv32a('e'));
  });
});

describe('prepareModified', () => {
  it('keeps only apiVersion, kind, name, namespace, uid, labels, annotations, finalizers, ownerReferences and spec', () => {
    const full = {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Machine',
      metadata: {
        name: 'm1',
        namespace: 'ns',
        uid: 'u',
        labels: { l: 'v' },
        annotations: { a: 'v' },
        finalizers: ['f'],
        ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'o', uid: 'ou' }],
        resourceVersion: '7',
        generation: 3,
        creationTimestamp: '2026-01-01T00:00:00Z',
        managedFields: [{ manager: 'x', operation: 'Apply' as const }],
      },
      spec: { version: 'v1' },
      status: { phase: 'Running' },
    };
    const out = prepareModified(full);
    expect(out).toEqual({
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Machine',
      metadata: {
        name: 'm1',
        namespace: 'ns',
        uid: 'u',
        labels: { l: 'v' },
        annotations: { a: 'v' },
        finalizers: ['f'],
        ownerReferences: full.metadata.ownerReferences,
      },
      spec: { version: 'v1' },
    });
    // A deep copy: the caller's object is untouched.
    (out.spec as { version: string }).version = 'changed';
    expect(full.spec.version).toBe('v1');
    expect(full.status).toBeDefined();
  });

  it('rejects intents without apiVersion/kind/name with a clear error', () => {
    expect(() => prepareModified({ apiVersion: '', kind: 'Machine', metadata: { name: 'x' } })).toThrow(
      InvalidApplyIntentError,
    );
    expect(() => prepareModified({ apiVersion: 'v1', kind: 'ConfigMap', metadata: {} })).toThrow(/metadata.name/);
  });
});
