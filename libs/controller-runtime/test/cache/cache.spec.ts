import {
  ApiError,
  CachedClient,
  controllerOwnerKey,
  CountingClientMetrics,
  indexByControllerOwner,
  indexByFieldPath,
  indexByLabel,
  InformerCache,
  isNotFound,
  KubeClient,
  NO_CONTROLLER_OWNER,
  OWNER_CONTROLLER_FIELD,
} from '@capi/controller-runtime';
import type { KubeObject } from '@capi/apimachinery';
import { FakeApiServer } from '../support/fake-apiserver';
import { eventually } from '../../src/testing/eventually';
import { isAtLeast } from '../../src/cache/cache';

describe('InformerCache and CachedClient', () => {
  let server: FakeApiServer;
  let direct: KubeClient;
  let metrics: CountingClientMetrics;
  let cache: InformerCache;
  const ref = (name: string) => ({ apiVersion: 'test.capi.io/v1', kind: 'Gadget', namespace: 'c', name });

  beforeAll(async () => {
    server = await new FakeApiServer().start();
    metrics = new CountingClientMetrics();
    direct = new KubeClient(server.kubeConfig(), { metrics });
    for (const [name, labels] of [
      ['g1', { role: 'cp' }],
      ['g2', { role: 'worker' }],
      ['g3', {}],
    ] as const) {
      await direct.create({
        apiVersion: 'test.capi.io/v1',
        kind: 'Gadget',
        metadata: { name, namespace: 'c', labels: { ...labels } },
      });
    }
    cache = new InformerCache(direct, { namespace: 'c' });
    cache.start();
  });
  afterAll(async () => {
    await cache.stop();
    direct.close();
    await server.stop();
  });

  it('serves get/list from the informer with label selectors and returns deep copies', async () => {
    const g1 = await cache.get(ref('g1'));
    g1.metadata.labels!.role = 'mutated';
    expect((await cache.get(ref('g1'))).metadata.labels!.role).toBe('cp');
    // readOnly: the cached object, frozen (the same object on every read), no copy
    const shared = (await cache.tryGet(ref('g1'), { readOnly: true }))!;
    expect(await cache.tryGet(ref('g1'), { readOnly: true })).toBe(shared);
    expect(() => {
      shared.metadata.labels!.role = 'mutated';
    }).toThrow(TypeError);
    const cps = await cache.list('test.capi.io/v1', 'Gadget', { labelSelector: 'role in (cp,worker),role!=worker' });
    expect(cps.items.map((i) => i.metadata.name)).toEqual(['g1']);
    const noRole = await cache.list('test.capi.io/v1', 'Gadget', { labelSelector: '!role' });
    expect(noRole.items.map((i) => i.metadata.name)).toEqual(['g3']);
    expect(isNotFound(await cache.get(ref('nope')).catch((e) => e))).toBe(true);
    await expect(cache.list('test.capi.io/v1', 'Gadget', { labelSelector: 'a in (' })).rejects.toBeInstanceOf(ApiError);
    // A filter narrows together with the selector, sees the cached object, and the kept ones are still copies.
    const seen: string[] = [];
    const filtered = await cache.list('test.capi.io/v1', 'Gadget', {
      labelSelector: 'role',
      filter: (o) => (seen.push(o.metadata.name!), o.metadata.name !== 'g1'),
    });
    expect(filtered.items.map((i) => i.metadata.name)).toEqual(['g2']);
    expect(seen.sort()).toEqual(['g1', 'g2']);
    filtered.items[0].metadata.labels!.role = 'mutated';
    expect((await cache.get(ref('g2'))).metadata.labels!.role).toBe('worker');
  });

  it('stores equal managedFields trees once, frozen, while reads stay independent copies (transform off when asked)', async () => {
    const fields = { 'f:metadata': { 'f:labels': { 'f:role': {} } }, 'f:spec': { 'f:size': {} } };
    const withFields = (name: string, time: string) => ({
      apiVersion: 'test.capi.io/v1',
      kind: 'Gadget',
      metadata: {
        name,
        namespace: 'mf',
        managedFields: [
          { manager: 'm', operation: 'Apply' as const, time, fieldsType: 'FieldsV1' as const, fieldsV1: fields },
        ],
      },
    });
    await direct.create(withFields('z1', '2026-12-04T00:00:00Z'));
    await direct.create(withFields('z2', '2026-12-04T00:00:05Z'));
    const gizmo = (name: string) => ({ apiVersion: 'test.capi.io/v1', kind: 'Gadget', namespace: 'mf', name });
    const tree = async (c: InformerCache, name: string) =>
      (await c.tryGet(gizmo(name), { readOnly: true }))!.metadata.managedFields![0].fieldsV1!;
    const shared = new InformerCache(direct, { namespace: 'mf' });
    const unshared = new InformerCache(direct, { namespace: 'mf', informer: { transform: undefined } });
    shared.start();
    unshared.start();
    try {
      await eventually(async () => !!(await shared.tryGet(gizmo('z2'))), 'z2 cached');
      expect(await tree(shared, 'z2')).toBe(await tree(shared, 'z1'));
      expect(Object.isFrozen(await tree(shared, 'z1'))).toBe(true);
      const copy = (await shared.get(gizmo('z1'))).metadata.managedFields![0];
      expect(copy.time).toBe('2026-12-04T00:00:00Z');
      (copy.fieldsV1 as any)['f:spec']['f:other'] = {};
      expect(await tree(shared, 'z2')).toEqual(fields);

      await eventually(async () => !!(await unshared.tryGet(gizmo('z2'))), 'z2 cached without transform');
      expect(await tree(unshared, 'z2')).not.toBe(await tree(unshared, 'z1'));
      expect(await tree(unshared, 'z2')).toEqual(await tree(unshared, 'z1'));
    } finally {
      await shared.stop();
      await unshared.stop();
    }
  });

  it('CachedClient reads from the cache and writes to the API', async () => {
    const cached = new CachedClient(cache, direct);
    await cached.list('test.capi.io/v1', 'Gadget');
    const listsBefore = metrics.count('list', 'Gadget');
    const getsBefore = metrics.count('get');
    await cached.get(ref('g2'));
    await cached.list('test.capi.io/v1', 'Gadget', { labelSelector: 'role=cp' });
    expect(metrics.count('list', 'Gadget')).toBe(listsBefore);
    expect(metrics.count('get')).toBe(getsBefore);
    const patched = await cached.patch(ref('g2'), 'merge', { spec: { n: 1 } });
    expect(metrics.count('patch', 'Gadget')).toBe(1);
    expect(await cache.waitForResourceVersion(ref('g2'), patched.metadata.resourceVersion!, 5000)).toBe(true);
    expect((await cached.get(ref('g2'))).spec).toEqual({ n: 1 });
  });

  it('waitForResourceVersion times out when the cache has not seen the version', async () => {
    server.suspendWatchDelivery();
    try {
      const patched = await direct.patch(ref('g3'), 'merge', { spec: { n: 2 } });
      expect(await cache.waitForResourceVersion(ref('g3'), patched.metadata.resourceVersion!, 50)).toBe(false);
    } finally {
      server.suspendWatchDelivery(false);
    }
    server.dropWatches(); // resume replays the missed event
    await eventually(async () => (await cache.get(ref('g3'))).spec !== undefined, 'replayed event');
  });

  it('waitForGone / waitForWrite: until the cache no longer holds the object a write let go', async () => {
    const created = await direct.create<KubeObject>({
      apiVersion: 'test.capi.io/v1',
      kind: 'Gadget',
      metadata: { name: 'g-gone', namespace: 'c' },
    });
    await cache.waitForResourceVersion(ref('g-gone'), created.metadata.resourceVersion!, 5000);
    // The answer to the write that removed the last finalizer: deleting, no finalizers, its last resourceVersion
    // (which the cache already has, so waiting for that version would return at once).
    const lastAnswer = { ...created, metadata: { ...created.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } };
    server.suspendWatchDelivery();
    try {
      await direct.delete(ref('g-gone'));
      expect(await cache.waitForWrite(lastAnswer, 50)).toBe(false);
    } finally {
      server.suspendWatchDelivery(false);
    }
    server.dropWatches(); // resume replays the missed event
    expect(await cache.waitForGone(ref('g-gone'), created.metadata.uid!, 5000)).toBe(true);
    expect(await cache.waitForWrite(lastAnswer, 50)).toBe(true);
  });

  it('waitForResourceVersion gives up when its signal aborts (the reconcile is stopping)', async () => {
    server.suspendWatchDelivery();
    try {
      const patched = await direct.patch(ref('g3'), 'merge', { spec: { n: 3 } });
      const aborted = new AbortController();
      aborted.abort();
      expect(
        await cache.waitForResourceVersion(ref('g3'), patched.metadata.resourceVersion!, 60_000, aborted.signal),
      ).toBe(false);
      const later = new AbortController();
      const started = Date.now();
      const waiting = cache.waitForResourceVersion(ref('g3'), patched.metadata.resourceVersion!, 60_000, later.signal);
      setTimeout(() => later.abort(), 20);
      expect(await waiting).toBe(false);
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      server.suspendWatchDelivery(false);
    }
    server.dropWatches();
    await eventually(async () => ((await cache.get(ref('g3'))).spec as { n?: number }).n === 3, 'replayed event');
  });

  it('orders numeric resource versions', () => {
    expect(isAtLeast('10', '9')).toBe(true);
    expect(isAtLeast('9', '10')).toBe(false);
    expect(isAtLeast('abc', 'abc')).toBe(true);
    expect(isAtLeast(undefined, '1')).toBe(false);
  });

  describe('field indexes', () => {
    const TOY = { apiVersion: 'test.capi.io/v1', kind: 'Widget' };
    const toy = (namespace: string, name: string, owner: string | undefined, labels: Record<string, string> = {}) => ({
      ...TOY,
      metadata: {
        name,
        namespace,
        labels,
        ownerReferences: owner
          ? [{ apiVersion: 'test.capi.io/v1', kind: 'Box', name: owner, uid: `u-${owner}`, controller: true }]
          : undefined,
      },
      spec: { color: owner ? `${owner}-color` : undefined },
    });
    let indexed: InformerCache;

    beforeAll(async () => {
      for (const ns of ['n1', 'n2']) {
        await direct.create(toy(ns, 'a', 'box1', { tier: 'gold' }));
        await direct.create(toy(ns, 'b', 'box2', { tier: 'gold' }));
        await direct.create(toy(ns, 'c', undefined, { tier: 'tin' }));
      }
      indexed = new InformerCache(direct);
      indexByControllerOwner(indexed, TOY.apiVersion, TOY.kind);
      indexByControllerOwner(indexed, TOY.apiVersion, TOY.kind); // a second controller asking for it: no-op
      indexByFieldPath(indexed, TOY.apiVersion, TOY.kind, 'spec.color');
      indexByLabel(indexed, TOY.apiVersion, TOY.kind, 'tier');
      indexed.start();
    });
    afterAll(() => indexed.stop());

    const names = (l: { items: { metadata: { namespace?: string; name?: string } }[] }) =>
      l.items.map((i) => `${i.metadata.namespace}/${i.metadata.name}`);

    it('lists by controller owner, field path and label, per namespace or across, as copies', async () => {
      const byOwner = (namespace?: string, key = controllerOwnerKey('Box', 'box1')) =>
        indexed.list(TOY.apiVersion, TOY.kind, { namespace, matchingFields: { [OWNER_CONTROLLER_FIELD]: key } });
      expect(names(await byOwner('n1'))).toEqual(['n1/a']);
      expect(names(await byOwner())).toEqual(['n1/a', 'n2/a']);
      expect(names(await byOwner('n2', NO_CONTROLLER_OWNER))).toEqual(['n2/c']);
      expect(
        names(
          await indexed.list(TOY.apiVersion, TOY.kind, {
            namespace: 'n1',
            matchingFields: { 'spec.color': 'box2-color' },
          }),
        ),
      ).toEqual(['n1/b']);
      // two fields: the second narrows what the first index returned
      expect(
        names(
          await indexed.list(TOY.apiVersion, TOY.kind, {
            matchingFields: { 'spec.color': 'box2-color', [OWNER_CONTROLLER_FIELD]: controllerOwnerKey('Box', 'box1') },
          }),
        ),
      ).toEqual([]);
      // a label index serves an equality selector; the rest of the selector still applies
      expect(
        names(await indexed.list(TOY.apiVersion, TOY.kind, { namespace: 'n2', labelSelector: 'tier=gold' })),
      ).toEqual(['n2/a', 'n2/b']);
      expect(
        names(await indexed.list(TOY.apiVersion, TOY.kind, { labelSelector: 'tier=gold,tier notin (gold)' })),
      ).toEqual([]);
      // watch mappers read the stored objects synchronously, without copies
      const stored = indexed.listStored(TOY.apiVersion, TOY.kind, {
        namespace: 'n2',
        matchingFields: { [OWNER_CONTROLLER_FIELD]: controllerOwnerKey('Box', 'box2') },
      });
      expect(names({ items: [...stored] })).toEqual(['n2/b']);
      expect(
        indexed.listStored(TOY.apiVersion, TOY.kind, {
          namespace: 'n2',
          matchingFields: { [OWNER_CONTROLLER_FIELD]: controllerOwnerKey('Box', 'box2') },
        })[0],
      ).toBe(stored[0]);
      // readOnly: the stored object itself, frozen; later plain reads are still mutable copies
      const shared = (
        await indexed.list(TOY.apiVersion, TOY.kind, {
          namespace: 'n2',
          readOnly: true,
          matchingFields: { [OWNER_CONTROLLER_FIELD]: controllerOwnerKey('Box', 'box2') },
        })
      ).items[0];
      expect(shared).toBe(stored[0]);
      expect(() => {
        shared.metadata.name = 'mutated';
      }).toThrow(TypeError);
      const again = (
        await indexed.list(TOY.apiVersion, TOY.kind, {
          namespace: 'n2',
          matchingFields: { [OWNER_CONTROLLER_FIELD]: controllerOwnerKey('Box', 'box2') },
        })
      ).items[0];
      again.metadata.name = 'mutated';
      expect(stored[0].metadata.name).toBe('b');
      const copy = (await byOwner('n1')).items[0];
      copy.metadata.ownerReferences![0].name = 'mutated';
      expect(names(await byOwner('n1'))).toEqual(['n1/a']);
    });

    it('follows an object whose controller owner changes, through the CachedClient', async () => {
      const cached = new CachedClient(indexed, direct);
      const released = await direct.patch({ ...TOY, namespace: 'n1', name: 'b' }, 'merge', {
        metadata: { ownerReferences: null },
      });
      await indexed.waitForResourceVersion(
        { ...TOY, namespace: 'n1', name: 'b' },
        released.metadata.resourceVersion!,
        5000,
      );
      const list = (key: string) =>
        cached.list(TOY.apiVersion, TOY.kind, { namespace: 'n1', matchingFields: { [OWNER_CONTROLLER_FIELD]: key } });
      expect(names(await list(NO_CONTROLLER_OWNER))).toEqual(['n1/b', 'n1/c']);
      expect(names(await list(controllerOwnerKey('Box', 'box2')))).toEqual([]);
      await direct.delete({ ...TOY, namespace: 'n1', name: 'c' });
      await eventually(async () => names(await list(NO_CONTROLLER_OWNER)).length === 1, 'delete leaves the index');
    });

    it('names a missing index, refuses late or conflicting registrations', async () => {
      await expect(indexed.list(TOY.apiVersion, TOY.kind, { matchingFields: { 'spec.size': '1' } })).rejects.toThrow(
        /no index "spec.size" on test.capi.io\/v1 Widget/,
      );
      expect(() => indexByFieldPath(indexed, TOY.apiVersion, TOY.kind, 'spec.size')).toThrow(/before the cache starts/);
      expect(() => indexed.indexField(TOY.apiVersion, TOY.kind, 'spec.color', () => [])).toThrow(/another extractor/);
    });
  });
});
