import type { KubeObject } from '@capi/apimachinery';
import { droppedPaths, initCreate, mergeUpdate, specChanged } from './objects';
import { builtinResources, resourcesFromCrd } from './registry';

const info = resourcesFromCrd({
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { kind: 'Widget', plural: 'widgets' },
    versions: [{ name: 'v1', served: true, storage: true, subresources: { status: {} } }],
  },
})[0];

const base: KubeObject = {
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w', namespace: 'default', uid: 'u1', generation: 1, creationTimestamp: 't0' },
  spec: { a: 1 },
  status: { ok: true },
};

describe('object write rules', () => {
  it('create stamps metadata, expands generateName and drops status of custom resources', () => {
    const out = initCreate(
      { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { generateName: 'w-' }, status: { x: 1 } },
      info,
      'now',
      'uid',
      'ns',
    );
    expect(out.metadata).toMatchObject({ uid: 'uid', creationTimestamp: 'now', generation: 1, namespace: 'ns' });
    expect(out.metadata.name).toMatch(/^w-[a-z0-9]{5}$/);
    expect(out.status).toBeUndefined();
  });
  it('bumps generation on spec change only', () => {
    expect(mergeUpdate(base, { ...base, spec: { a: 2 } }, info).metadata.generation).toBe(2);
    expect(
      mergeUpdate(base, { ...base, metadata: { ...base.metadata, labels: { l: 'v' } } }, info).metadata.generation,
    ).toBe(1);
    expect(mergeUpdate(base, { ...base, status: { ok: false } }, info, 'status').metadata.generation).toBe(1);
  });
  it('main-resource writes cannot change status; status writes change only status', () => {
    expect(mergeUpdate(base, { ...base, status: { ok: false } }, info).status).toEqual({ ok: true });
    const s = mergeUpdate(base, { ...base, spec: { a: 9 }, status: { ok: false } }, info, 'status');
    expect(s.spec).toEqual({ a: 1 });
    expect(s.status).toEqual({ ok: false });
  });
  it('keeps immutable metadata', () => {
    const out = mergeUpdate(
      base,
      { ...base, metadata: { ...base.metadata, uid: 'other', creationTimestamp: 'x' } },
      info,
    );
    expect(out.metadata).toMatchObject({ uid: 'u1', creationTimestamp: 't0' });
  });
  it('specChanged ignores metadata', () => {
    expect(specChanged(base, { ...base, metadata: { name: 'w' } }, info)).toBe(false);
  });
});

describe('droppedPaths', () => {
  it('lists fields that pruning removed, with list indexes', () => {
    const before = { spec: { a: 1, junk: 2, items: [{ k: 1, x: 2 }] }, extra: true };
    const after = { spec: { a: 1, items: [{ k: 1 }] } };
    expect(droppedPaths(before, after)).toEqual(['spec.junk', 'spec.items[0].x', 'extra']);
    expect(droppedPaths(after, after)).toEqual([]);
  });

  it('built-ins without a generation strategy keep none (or the stored one), whatever the client sends', () => {
    const cmInfo = builtinResources().find((r) => r.kind === 'ConfigMap')!;
    const cm: KubeObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: 'default', uid: 'u', creationTimestamp: 't0' },
      data: { a: '1' },
    };
    expect(initCreate(cm, cmInfo, 'now', 'uid', 'default').metadata.generation).toBeUndefined();
    expect(
      mergeUpdate(cm, { ...cm, metadata: { ...cm.metadata, generation: 3 }, data: { a: '2' } }, cmInfo).metadata
        .generation,
    ).toBeUndefined();
    const legacy = { ...cm, metadata: { ...cm.metadata, generation: 2 } };
    expect(mergeUpdate(legacy, { ...cm, data: { a: '2' } }, cmInfo).metadata.generation).toBe(2);
  });
});

describe('built-in defaults of kube strategies', () => {
  const ns = builtinResources().find((r) => r.group === '' && r.kind === 'Namespace')!;
  const secret = builtinResources().find((r) => r.group === '' && r.kind === 'Secret')!;
  it('a new Namespace carries the kubernetes spec finalizer, which updates cannot change', () => {
    const created = initCreate(
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x' }, spec: { finalizers: ['example.com/f'] } },
      ns,
      'now',
      'u',
      '',
    );
    expect(created.spec).toEqual({ finalizers: ['example.com/f', 'kubernetes'] });
    expect(
      initCreate({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'y' } }, ns, 'now', 'u', '').spec,
    ).toEqual({ finalizers: ['kubernetes'] });
    expect(mergeUpdate(created, { ...created, spec: { finalizers: [] } }, ns).spec).toEqual({
      finalizers: ['example.com/f', 'kubernetes'],
    });
  });
  it('a Secret without a type is Opaque, on create and on update', () => {
    expect(
      initCreate({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: {} }, secret, 'now', 'u', 'default')
        .type,
    ).toBe('Opaque');
    const tls = initCreate(
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 't' }, type: 'kubernetes.io/tls' },
      secret,
      'now',
      'u',
      'default',
    );
    expect(tls.type).toBe('kubernetes.io/tls');
    expect(mergeUpdate(tls, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 't' } }, secret).type).toBe('Opaque');
  });
});
