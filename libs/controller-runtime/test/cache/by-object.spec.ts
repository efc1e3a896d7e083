// Per-kind cache settings (controller-runtime's cache.Options.ByObject), kinds the cached client reads from the API
// (client.CacheOptions.DisableFor), and a second cache watched through WatchSpec.cache (mgr.Add of a cache).
import {
  CachedClient,
  CountingClientMetrics,
  InformerCache,
  kindKey,
  KubeClient,
  Manager,
  type Request,
} from '@capi/controller-runtime';
import type { KubeObject } from '@capi/apimachinery';
import { FakeApiServer } from '../support/fake-apiserver';
import { eventually } from '../../src/testing/eventually';

const API = 'test.capi.io/v1';
const GADGET = kindKey(API, 'Gadget');
const gadget = (namespace: string, name: string, spec: object = {}): KubeObject => ({
  apiVersion: API,
  kind: 'Gadget',
  metadata: { name, namespace },
  spec,
});
const ref = (kind: string, namespace: string, name: string) => ({ apiVersion: API, kind, namespace, name });

describe('cache ByObject, client DisableFor, caches added to the manager', () => {
  let server: FakeApiServer;
  let metrics: CountingClientMetrics;
  let direct: KubeClient;
  beforeAll(async () => {
    server = await new FakeApiServer().start();
    metrics = new CountingClientMetrics();
    direct = new KubeClient(server.kubeConfig(), { metrics });
  });
  afterAll(async () => {
    direct.close();
    await server.stop();
  });

  it("applies a kind's own transform to that kind only", async () => {
    await direct.create(gadget('by-object', 'g', { secret: 'x', kept: 'y' }));
    await direct.create({ ...gadget('by-object', 'w', { secret: 'x' }), kind: 'Widget' });
    const cache = new InformerCache(direct, {
      namespace: 'by-object',
      byObject: {
        [GADGET]: {
          transform: (o) => ({ ...o, spec: { kept: (o.spec as { kept?: string }).kept } }),
        },
      },
    });
    cache.start();
    try {
      expect((await cache.get(ref('Gadget', 'by-object', 'g'))).spec).toEqual({ kept: 'y' });
      expect((await cache.get(ref('Widget', 'by-object', 'w'))).spec).toEqual({ secret: 'x' });
    } finally {
      await cache.stop();
    }
  });

  it('reads the kinds of disableFor from the API, others from the cache; a client without it caches them', async () => {
    const ns = 'disable-for';
    await direct.create(gadget(ns, 'g1'));
    await direct.create({ ...gadget(ns, 'w1'), kind: 'Widget' });
    const cache = new InformerCache(direct, { namespace: ns });
    cache.start();
    const client = new CachedClient(cache, direct, { disableFor: [GADGET] });
    try {
      metrics.reset();
      expect((await client.get(ref('Gadget', ns, 'g1'))).metadata.name).toBe('g1');
      expect(await client.tryGet(ref('Gadget', ns, 'missing'))).toBeUndefined();
      expect((await client.list(API, 'Gadget', { namespace: ns })).items.map((g) => g.metadata.name)).toEqual(['g1']);
      expect([metrics.count('get', 'Gadget'), metrics.count('list', 'Gadget')]).toEqual([2, 1]);
      // No informer was started for the kind by those reads.
      expect(Object.keys(cache.informerSizes())).toEqual([]);
      // A write is visible to the next read at once: no cache to catch up with.
      await direct.patch(ref('Gadget', ns, 'g1'), 'merge', { spec: { v: 2 } });
      expect((await client.get(ref('Gadget', ns, 'g1'))).spec).toEqual({ v: 2 });

      expect((await client.get(ref('Widget', ns, 'w1'))).metadata.name).toBe('w1');
      expect(metrics.count('get', 'Widget')).toBe(0);
      expect(Object.keys(cache.informerSizes())).toEqual([kindKey(API, 'Widget')]);

      const caching = new CachedClient(cache, direct);
      const before = metrics.count('get', 'Gadget');
      expect((await caching.get(ref('Gadget', ns, 'g1'))).spec).toEqual({ v: 2 });
      expect(metrics.count('get', 'Gadget')).toBe(before);
    } finally {
      await cache.stop();
    }
  });

  it("a manager starts, syncs and stops a watch's own cache; the watch enqueues from it", async () => {
    const ns = 'added-cache';
    const manager = new Manager({ client: direct, namespace: ns, clientDisableFor: [GADGET] });
    const gadgets = new InformerCache(direct, { namespace: ns });
    const reconciled: string[] = [];
    manager.addController(
      { reconcile: async (r: Request) => void reconciled.push(r.name) },
      {
        name: 'widgets',
        for: { apiVersion: API, kind: 'Widget' },
        watches: [
          {
            apiVersion: API,
            kind: 'Gadget',
            cache: gadgets,
            map: (g) => [{ namespace: ns, name: `from-${g.metadata.name}` }],
          },
        ],
      },
    );
    // The manager's own cache holds no Gadgets: only the added one watches them.
    expect(Object.keys(manager.cache.informerSizes())).toEqual([kindKey(API, 'Widget')]);
    await direct.create(gadget(ns, 'early'));
    await manager.start();
    try {
      expect(gadgets.hasSynced()).toBe(true);
      await eventually(() => reconciled.includes('from-early'), 'the synced Gadget enqueued');
      await direct.create(gadget(ns, 'late'));
      await eventually(() => reconciled.includes('from-late'), 'a new Gadget enqueued');
      // The manager's client reads Gadgets from the API; its secret-caching client from the manager's cache.
      expect((await manager.cachedClient.get(ref('Gadget', ns, 'late'))).metadata.name).toBe('late');
      expect((await manager.secretCachingClient.get(ref('Gadget', ns, 'late'))).metadata.name).toBe('late');
    } finally {
      await manager.stop();
    }
    // Stopped with the manager: it no longer follows the server.
    await direct.create(gadget(ns, 'after-stop'));
    await new Promise((r) => setTimeout(r, 200));
    expect(gadgets.informerSizes()).toEqual({ [GADGET]: 2 });
  });
});
