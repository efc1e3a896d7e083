import type { KubeObject } from '@capi/apimachinery';
import {
  checkDeletePreconditions,
  deletedStatus,
  gcFinalizers,
  markDeleting,
  pendingSpecFinalizers,
  validateDeletePolicy,
} from './deletion';
import { builtinResources, resourcesFromCrd } from './registry';
import { StatusError } from './status';

const widgets = resourcesFromCrd({
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { kind: 'Widget', plural: 'widgets' },
    versions: [{ name: 'v1', served: true, storage: true }],
  },
})[0];
const namespaces = builtinResources().find((r) => r.group === '' && r.kind === 'Namespace')!;
const w = (): KubeObject => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w', namespace: 'd', uid: 'u1', resourceVersion: '7', generation: 3 },
});

describe('gcFinalizers (kube deletionFinalizersForGarbageCollection)', () => {
  it('adds the policy finalizer whether or not there are dependents, after the others', () => {
    expect(gcFinalizers(['a'], { propagationPolicy: 'Foreground' })).toEqual(['a', 'foregroundDeletion']);
    expect(gcFinalizers([], { propagationPolicy: 'Orphan' })).toEqual(['orphan']);
    expect(gcFinalizers([], { propagationPolicy: 'Background' })).toEqual([]);
  });

  it('a new policy replaces the other finalizer; without one the present finalizer stands', () => {
    expect(gcFinalizers(['orphan', 'a'], { propagationPolicy: 'Foreground' })).toEqual(['a', 'foregroundDeletion']);
    expect(gcFinalizers(['foregroundDeletion', 'a'], { propagationPolicy: 'Background' })).toEqual(['a']);
    const same = ['foregroundDeletion', 'a'];
    expect(gcFinalizers(same, {})).toBe(same);
  });

  it('orphanDependents wins over the policy', () => {
    expect(gcFinalizers([], { orphanDependents: true, propagationPolicy: 'Foreground' })).toEqual(['orphan']);
    expect(gcFinalizers(['orphan'], { orphanDependents: false })).toEqual([]);
  });
});

describe('validateDeletePolicy', () => {
  it('422 DeleteOptions for an unknown policy or both ways of saying it', () => {
    expect(() => validateDeletePolicy({ propagationPolicy: 'Bogus' as never })).toThrow(
      'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Bogus": supported values: "Foreground", "Background", "Orphan", "nil"',
    );
    expect(() => validateDeletePolicy({ propagationPolicy: 'Orphan', orphanDependents: true })).toThrow(
      'orphanDependents and deletionPropagation cannot be both set',
    );
    expect(() => validateDeletePolicy({ propagationPolicy: 'Foreground' })).not.toThrow();
  });
});

describe('checkDeletePreconditions (kube rest.BeforeDelete)', () => {
  const failure = (f: () => void) => {
    try {
      f();
    } catch (e) {
      return (e as StatusError).toStatus();
    }
    throw new Error('expected a conflict');
  };

  it('a Conflict naming the kind', () => {
    expect(failure(() => checkDeletePreconditions(widgets, w(), { uid: 'u0' }))).toMatchObject({
      code: 409,
      reason: 'Conflict',
      details: { name: 'w', group: 'example.com', kind: 'Widget' },
      message:
        'Operation cannot be fulfilled on Widget.example.com "w": the UID in the precondition (u0) does not match the UID in record (u1). The object might have been deleted and then recreated',
    });
    expect(failure(() => checkDeletePreconditions(widgets, w(), { resourceVersion: '6' })).message).toBe(
      'Operation cannot be fulfilled on Widget.example.com "w": the ResourceVersion in the precondition (6) does not match the ResourceVersion in record (7). The object might have been modified',
    );
    expect(() => checkDeletePreconditions(widgets, w(), { uid: 'u1', resourceVersion: '7' })).not.toThrow();
  });

  it('Namespaces word it as their storage does', () => {
    const ns: KubeObject = {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'n', uid: 'u1', resourceVersion: '7' },
    };
    expect(failure(() => checkDeletePreconditions(namespaces, ns, { uid: 'u0' })).message).toBe(
      'Operation cannot be fulfilled on namespaces "n": Precondition failed: UID in precondition: u0, UID in object meta: u1',
    );
  });
});

describe('markDeleting and the answers of a delete', () => {
  it('sets deletionTimestamp and grace 0, bumps generation once', () => {
    const once = markDeleting(widgets, w(), ['a'], 'now');
    expect(once.metadata).toMatchObject({
      finalizers: ['a'],
      deletionTimestamp: 'now',
      deletionGracePeriodSeconds: 0,
      generation: 4,
    });
    expect(markDeleting(widgets, once, ['a', 'orphan'], 'later').metadata).toMatchObject({
      deletionTimestamp: 'now',
      generation: 4,
      finalizers: ['a', 'orphan'],
    });
  });

  it('a Namespace turns Terminating, without a grace period, and waits for its spec finalizers', () => {
    const ns: KubeObject = {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'n' },
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Active' },
    };
    const out = markDeleting(namespaces, ns, [], 'now');
    expect(out.status).toEqual({ phase: 'Terminating' });
    expect(out.metadata.deletionGracePeriodSeconds).toBeUndefined();
    expect(pendingSpecFinalizers(namespaces, out)).toBe(true);
    expect(pendingSpecFinalizers(namespaces, { ...out, spec: {} })).toBe(false);
    expect(pendingSpecFinalizers(widgets, { ...w(), spec: { finalizers: ['x'] } })).toBe(false);
  });

  it('an immediate delete answers a Success Status naming the resource', () => {
    expect(deletedStatus(widgets, w())).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: 'w', group: 'example.com', kind: 'widgets', uid: 'u1' },
    });
  });
});
