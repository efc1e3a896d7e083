import type { KubeObject } from '@capi/apimachinery';
import { ownedValuesDigest } from './owned-values';

const fieldsV1 = {
  'f:metadata': {
    'f:labels': { 'f:a': {} },
    'f:ownerReferences': { 'k:{"uid":"u1"}': { '.': {}, 'f:name': {} } },
    'f:finalizers': { 'v:"f1"': {} },
  },
  'f:spec': { 'f:size': {} },
};
const obj = (
  patch: {
    labels?: Record<string, string>;
    owners?: { uid: string; name: string }[];
    finalizers?: string[];
    size?: number;
    other?: string;
    manager?: string;
  } = {},
): KubeObject => ({
  apiVersion: 'x/v1',
  kind: 'W',
  metadata: {
    name: 'w',
    uid: 'obj-1',
    labels: patch.labels ?? { a: '1', b: 'other' },
    ownerReferences: patch.owners ?? [
      { uid: 'u0', name: 'not-ours' },
      { uid: 'u1', name: 'ours' },
    ],
    finalizers: patch.finalizers ?? ['f0', 'f1'],
    managedFields: [
      { manager: patch.manager ?? 'me', operation: 'Apply', apiVersion: 'x/v1', fieldsType: 'FieldsV1', fieldsV1 },
    ],
  } as unknown as KubeObject['metadata'],
  spec: { size: patch.size ?? 1, other: patch.other ?? 'x' },
});

describe('ownedValuesDigest', () => {
  const base = ownedValuesDigest(obj(), 'me');

  it('ignores fields the manager does not own', () => {
    expect(base).toBeDefined();
    expect(ownedValuesDigest(obj({ other: 'changed', labels: { a: '1', b: 'changed' } }), 'me')).toBe(base);
    expect(
      ownedValuesDigest(
        obj({
          owners: [
            { uid: 'u1', name: 'ours' },
            { uid: 'u9', name: 'new' },
          ],
          finalizers: ['f1', 'f2'],
        }),
        'me',
      ),
    ).toBe(base);
  });

  it('changes with any owned value: map field, associative list item, set item', () => {
    expect(ownedValuesDigest(obj({ size: 2 }), 'me')).not.toBe(base);
    expect(ownedValuesDigest(obj({ labels: { b: 'other' } }), 'me')).not.toBe(base); // our label removed
    expect(ownedValuesDigest(obj({ owners: [{ uid: 'u1', name: 'renamed' }] }), 'me')).not.toBe(base);
    expect(ownedValuesDigest(obj({ finalizers: ['f0'] }), 'me')).not.toBe(base);
  });

  it('is undefined without an Apply entry of the manager', () => {
    expect(ownedValuesDigest(obj({ manager: 'someone-else' }), 'me')).toBeUndefined();
  });
});
