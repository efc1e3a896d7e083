import type { KubeObject } from '@capi/apimachinery';
import { danglingOwnerUids } from './gc';

describe('danglingOwnerUids', () => {
  const obj: KubeObject = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'd',
      ownerReferences: [
        { apiVersion: 'v1', kind: 'Secret', name: 'alive', uid: 'u1' },
        { apiVersion: 'v1', kind: 'Secret', name: 'recreated', uid: 'old-uid' },
      ],
    },
  };
  it('reports owners that are gone or were recreated with another uid', () => {
    const live = new Map([
      ['alive', 'u1'],
      ['recreated', 'new-uid'],
    ]);
    expect(danglingOwnerUids(obj, (r) => live.get(r.name) === r.uid)).toEqual(['old-uid']);
  });
  it('is empty without owner references', () => {
    expect(danglingOwnerUids({ ...obj, metadata: { name: 'x' } }, () => false)).toEqual([]);
  });
});
