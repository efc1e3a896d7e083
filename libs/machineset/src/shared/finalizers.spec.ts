import type { KubeObject } from '@capi/apimachinery';
import { addFinalizerPatch, planChildDeletion, removeFinalizerPatch } from './finalizers';

const F = 'cluster.x-k8s.io/machineset';
const obj = (meta: Partial<KubeObject['metadata']> = {}): KubeObject => ({
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'MachineSet',
  metadata: { name: 'ms', namespace: 'ns', resourceVersion: '7', ...meta },
});

describe('addFinalizerPatch (upstream util/finalizers EnsureFinalizer)', () => {
  it('adds the finalizer after the others, with the resourceVersion read', () => {
    expect(addFinalizerPatch(obj({ finalizers: ['other'] }), F)).toEqual({
      metadata: { finalizers: ['other', F], resourceVersion: '7' },
    });
    expect(addFinalizerPatch(obj(), F)).toEqual({ metadata: { finalizers: [F], resourceVersion: '7' } });
  });
  it('does nothing when the finalizer is there', () => {
    expect(addFinalizerPatch(obj({ finalizers: [F] }), F)).toBeUndefined();
  });
  it('does nothing on a deleting object (finalizers cannot be added then)', () => {
    expect(
      addFinalizerPatch(obj({ deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['other'] }), F),
    ).toBeUndefined();
  });
});

describe('removeFinalizerPatch', () => {
  it('removes only that finalizer', () => {
    expect(removeFinalizerPatch(obj({ finalizers: ['a', F, 'b'] }), F)).toEqual({
      metadata: { finalizers: ['a', 'b'], resourceVersion: '7' },
    });
  });
  it('does nothing when it is not there', () => {
    expect(removeFinalizerPatch(obj({ finalizers: ['a'] }), F)).toBeUndefined();
    expect(removeFinalizerPatch(obj(), F)).toBeUndefined();
  });
});

describe('planChildDeletion (upstream reconcileDelete of MachineSet and MachineDeployment)', () => {
  it('removes the finalizer when no child is left', () => {
    expect(planChildDeletion([])).toEqual({ removeFinalizer: true, toDelete: [] });
  });
  it('deletes the children not deleting yet and keeps the finalizer while any is left', () => {
    const live = obj({ name: 'm1' });
    const deleting = obj({ name: 'm2', deletionTimestamp: '2026-01-01T00:00:00Z' });
    expect(planChildDeletion([live, deleting])).toEqual({ removeFinalizer: false, toDelete: [live] });
  });
  it('only waits when every child is deleting already', () => {
    const deleting = obj({ name: 'm2', deletionTimestamp: '2026-01-01T00:00:00Z' });
    expect(planChildDeletion([deleting])).toEqual({ removeFinalizer: false, toDelete: [] });
  });
});
