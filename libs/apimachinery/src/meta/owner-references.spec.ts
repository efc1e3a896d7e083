import { ensureOwnerRef, sameOwnerRef } from './owner-references';

const cluster = { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', name: 'c1', uid: 'u1' };

// upstream util/util_test.go TestEnsureOwnerRef
describe('ensureOwnerRef', () => {
  it('appends a reference to a new owner', () => {
    const other = { apiVersion: 'v1', kind: 'Secret', name: 's', uid: 'x' };
    expect(ensureOwnerRef([other], cluster)).toEqual([other, cluster]);
  });

  it('replaces the reference to the same owner, whatever its version (an old apiVersion is updated)', () => {
    const old = { ...cluster, apiVersion: 'cluster.x-k8s.io/v1beta1', uid: 'old' };
    expect(ensureOwnerRef([old], cluster)).toEqual([cluster]);
  });

  it('keeps references to another owner of the same kind', () => {
    const c2 = { ...cluster, name: 'c2', uid: 'u2' };
    expect(ensureOwnerRef([c2], cluster)).toEqual([c2, cluster]);
  });

  it('sameOwnerRef compares group, kind and name', () => {
    expect(sameOwnerRef(cluster, { ...cluster, apiVersion: 'cluster.x-k8s.io/v1beta1' })).toBe(true);
    expect(sameOwnerRef(cluster, { ...cluster, apiVersion: 'other.io/v1beta2' })).toBe(false);
  });
});
