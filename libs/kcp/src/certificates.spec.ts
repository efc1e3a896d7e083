// Ported from upstream kubeadmcontrolplane_controller_test.go TestKubeadmControlPlaneReconciler_ensureOwnerReferences.
import type { OwnerReference } from '@capi/apimachinery';
import { certificateOwnerReferences } from './certificates';
import { kcpOwnerReference } from './desired';
import { kcp } from './testing/fixtures';

const kcpOwner = kcpOwnerReference(kcp(), true);
const other = (name: string, uid: string): OwnerReference => ({
  apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta2',
  kind: 'OtherController',
  name,
  uid,
  controller: true,
});
const secret = (type: string, ownerReferences?: OwnerReference[]) => ({ type, metadata: { ownerReferences } });

describe('certificateOwnerReferences (upstream ensureCertificatesOwnerRef)', () => {
  it('adds the KCP owner to cluster.x-k8s.io/secret Secrets with no controller reference', () => {
    expect(certificateOwnerReferences(secret('cluster.x-k8s.io/secret'), kcpOwner)).toEqual([kcpOwner]);
  });

  it('replaces a non-KCP controller with the KCP controller reference', () => {
    const refs = certificateOwnerReferences(secret('cluster.x-k8s.io/secret', [other('name', 'uid')]), kcpOwner);
    expect(refs).toEqual([kcpOwner]);
  });

  it('does not add an owner reference to user-provided Secrets', () => {
    const user = other(kcpOwner.name, kcpOwner.uid);
    expect(certificateOwnerReferences(secret('Opaque', [{ ...user, blockOwnerDeletion: true }]), kcpOwner)).toBe(
      undefined,
    );
  });

  it('brings an old KCP controller reference up to date even on a user-provided Secret', () => {
    const old = { ...kcpOwner, apiVersion: 'controlplane.cluster.x-k8s.io/v1alpha3', uid: 'old-uid' };
    expect(certificateOwnerReferences(secret('Opaque', [old]), kcpOwner)).toEqual([kcpOwner]);
  });

  it('nothing to do when KCP already controls it', () => {
    expect(certificateOwnerReferences(secret('cluster.x-k8s.io/secret', [kcpOwner]), kcpOwner)).toBe(undefined);
  });
});
