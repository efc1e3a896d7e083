import { KubeClient, Manager, compareResourceVersion, type ReconcileContext } from '@capi/controller-runtime';
import type { KubeObject } from '@capi/apimachinery';
import { ConsistencyStore, type InformerSource } from '../../src/controller/consistency';
import { eventually } from '../../src/testing/eventually';
import { FakeApiServer } from '../support/fake-apiserver';

// k8s.io/apimachinery/pkg/util/resourceversion/resourceversion_test.go TestCompareResourceVersion.
describe('compareResourceVersion', () => {
  it.each([
    ['1', '2', -1],
    ['2', '1', 1],
    ['1', '1', 0],
    ['10', '10', 0],
    ['1', '10', -1],
    ['10', '1', 1],
    ['1000000000000000000000000000001', '1000000000000000000000000000002', -1],
    ['1000000000000000000000000000002', '1000000000000000000000000000001', 1],
    ['1000000000000000000000000000001', '1000000000000000000000000000001', 0],
  ])('%s vs %s is %d', (a, b, want) => expect(compareResourceVersion(a, b)).toBe(want));

  it.each([
    ['0', '1'],
    ['1', '0'],
    ['0', '0'],
    ['01', '1'],
    ['1', '01'],
    ['', '1'],
    ['1', ''],
    ['a', '1'],
    ['1', '1a'],
  ])('%j vs %j is not well formed', (a, b) => {
    expect(() => compareResourceVersion(a, b)).toThrow('resource version is not well formed');
  });
});

/** Informers whose last seen resourceVersion the test sets, as upstream's tests Bookmark a store. */
class FakeInformers implements InformerSource {
  readonly read = new Map<string, string>();
  informerFor(apiVersion: string, kind: string) {
    return { lastResourceVersion: () => this.read.get(`${apiVersion}/${kind}`) };
  }
}

// Cluster API util/controller/consistency_test.go.
describe('ConsistencyStore', () => {
  const pod = { apiVersion: 'v1', kind: 'Pod' };
  const ds = { apiVersion: 'apps/v1', kind: 'DaemonSet' };

  it('is ready without writes; waits until the informer has seen every kind written, then forgets the owner', () => {
    const informers = new FakeInformers();
    const store = new ConsistencyStore(informers);
    expect(store.ensureReady('ns/owner1')).toEqual([]);
    store.wroteAt('ns/owner1', 'uid-1', pod, '10');
    expect(store.ensureReady('ns/owner1')).toEqual([{ ...pod, wroteRV: '10', readRV: '' }]); // not synced yet
    informers.read.set('v1/Pod', '5');
    expect(store.ensureReady('ns/owner1')).toEqual([{ ...pod, wroteRV: '10', readRV: '5' }]);
    store.wroteAt('ns/owner1', 'uid-1', ds, '100');
    informers.read.set('v1/Pod', '15');
    informers.read.set('apps/v1/DaemonSet', '50');
    expect(store.ensureReady('ns/owner1')).toEqual([{ ...ds, wroteRV: '100', readRV: '50' }]);
    informers.read.set('apps/v1/DaemonSet', '100');
    expect(store.ensureReady('ns/owner1')).toEqual([]);
    expect(store.size()).toBe(0);
  });

  it('keeps the newest version written per kind', () => {
    const informers = new FakeInformers();
    const store = new ConsistencyStore(informers);
    store.wroteAt('ns/o', 'u', pod, '5');
    store.wroteAt('ns/o', 'u', pod, '10');
    store.wroteAt('ns/o', 'u', pod, '8');
    informers.read.set('v1/Pod', '9');
    expect(store.ensureReady('ns/o')).toEqual([{ ...pod, wroteRV: '10', readRV: '9' }]);
  });

  it('starts over when the owner comes back with another uid; clears by uid, or whatever the uid when none is given', () => {
    const informers = new FakeInformers();
    const store = new ConsistencyStore(informers);
    store.wroteAt('ns/o', 'uid-1', pod, '10');
    store.wroteAt('ns/o', 'uid-2', ds, '3');
    informers.read.set('apps/v1/DaemonSet', '3');
    expect(store.ensureReady('ns/o')).toEqual([]); // the Pod written for uid-1 is no longer waited for

    store.wroteAt('ns/o1', 'uid-1', pod, '10');
    store.wroteAt('ns/o2', 'uid-2', pod, '10');
    store.clear('ns/o1', 'uid-other');
    expect(store.size()).toBe(2);
    store.clear('ns/o1', 'uid-1');
    expect(store.size()).toBe(1);
    store.clear('ns/o2');
    expect(store.size()).toBe(0);
  });

  it('does not hold reconciles back on versions that do not compare', () => {
    const informers = new FakeInformers();
    const store = new ConsistencyStore(informers);
    store.wroteAt('ns/o', 'u', pod, 'abc');
    informers.read.set('v1/Pod', '7');
    expect(store.ensureReady('ns/o')).toEqual([]);
  });

  it('reads the informer of the cache given with the written kind', () => {
    const main = new FakeInformers();
    const other = new FakeInformers();
    const store = new ConsistencyStore(main);
    main.read.set('v1/Secret', '20');
    store.wroteAt('ns/o', 'u', { apiVersion: 'v1', kind: 'Secret', cache: other }, '20');
    expect(store.ensureReady('ns/o')).toEqual([{ apiVersion: 'v1', kind: 'Secret', wroteRV: '20', readRV: '' }]);
    other.read.set('v1/Secret', '20');
    expect(store.ensureReady('ns/o')).toEqual([]);
  });
});

describe('deferring reconciles in a Manager (Cluster API util/controller controllerWrapper)', () => {
  let server: FakeApiServer;
  let client: KubeClient;
  let manager: Manager | undefined;
  beforeAll(async () => {
    server = await new FakeApiServer().start();
    client = new KubeClient(server.kubeConfig());
  });
  afterEach(async () => {
    await manager?.stop();
    manager = undefined;
  });
  afterAll(async () => {
    client.close();
    await server.stop();
  });

  const widget = (ns: string, name: string): KubeObject => ({
    apiVersion: 'test.capi.io/v1',
    kind: 'Widget',
    metadata: { name, namespace: ns },
    spec: {},
  });
  const staleSkips = async (m: Manager, kind: string) => {
    const { values } = await m.registry.getSingleMetric('capi_reconcile_stale_cache_skips_total')!.get();
    return values.find((v) => v.labels.cached_kind === kind)?.value ?? 0;
  };

  it('each reconcile sees the Gadgets the one before it created, however soon it runs after', async () => {
    const ns = 'defer-cache';
    const seen: number[] = [];
    const errors: unknown[] = [];
    manager = new Manager({ client, namespace: ns, reconcilerRateLimiting: true, rateLimitIntervalMs: 1 });
    const m = manager;
    m.addController(
      {
        reconcile: async (req, ctx) => {
          const owner = await m.cache.get({ apiVersion: 'test.capi.io/v1', kind: 'Widget', ...req });
          const count = m.cache.listStored('test.capi.io/v1', 'Gadget', { namespace: ns }).length;
          seen.push(count);
          if (count >= 15) return;
          try {
            // Named by how many the cache shows: a stale cache would create one that exists.
            const created: KubeObject = await client.create({
              apiVersion: 'test.capi.io/v1',
              kind: 'Gadget',
              metadata: { name: `g${count}`, namespace: ns },
            });
            ctx.controller!.deferNextReconcileUntilCacheUpToDate(
              owner,
              { apiVersion: 'test.capi.io/v1', kind: 'Gadget' },
              created.metadata.resourceVersion!,
            );
          } catch (e) {
            errors.push(e);
          }
          return { requeueAfterMs: 1 };
        },
      },
      {
        name: 'defer-cache',
        for: { apiVersion: 'test.capi.io/v1', kind: 'Widget' },
        watches: [{ apiVersion: 'test.capi.io/v1', kind: 'Gadget', map: () => [] }],
      },
    );
    await client.create(widget(ns, 'owner'));
    await m.start();
    server.delayWatchDelivery(30); // each create shows in the cache 30 ms after the reconcile that made it ends
    try {
      await eventually(() => seen.includes(15), 'fifteen Gadgets created', 20_000);
    } finally {
      server.delayWatchDelivery(0);
    }
    expect(errors).toEqual([]);
    expect(seen).toEqual(Array.from({ length: 16 }, (_, i) => i));
  });

  it('a stale cache skips the reconcile (counted per kind) and retries it until the informer caught up', async () => {
    const ns = 'defer-stale';
    const informers = new FakeInformers();
    const contexts: ReconcileContext[] = [];
    manager = new Manager({ client, namespace: ns, reconcilerRateLimiting: true, rateLimitIntervalMs: 1 });
    manager.addController(
      {
        reconcile: async (req, ctx) => {
          contexts.push(ctx);
          const owner = (await client.get({ apiVersion: 'test.capi.io/v1', kind: 'Widget', ...req })) as KubeObject;
          if (contexts.length === 1)
            ctx.controller!.deferNextReconcileUntilCacheUpToDate(
              owner,
              { apiVersion: 'v1', kind: 'Pod', cache: informers },
              '50',
            );
        },
      },
      { name: 'defer-stale', for: { apiVersion: 'test.capi.io/v1', kind: 'Widget' } },
    );
    const w = await client.create(widget(ns, 'owner'));
    await manager.start();
    await eventually(() => contexts.length === 1, 'first reconcile');
    informers.read.set('v1/Pod', '40');
    await client.update({ ...w, metadata: { ...w.metadata, labels: { touched: 'yes' } } });
    await eventually(async () => (await staleSkips(manager!, 'Pod')) >= 3, 'skipped and retried while stale');
    expect(contexts).toHaveLength(1);
    informers.read.set('v1/Pod', '50');
    await eventually(() => contexts.length === 2, 'reconciled once caught up');
  });

  it('deferNextReconcileForObject holds the next reconcile back for the time asked, events or not', async () => {
    const ns = 'defer-time';
    const starts: number[] = [];
    manager = new Manager({ client, namespace: ns, reconcilerRateLimiting: true, rateLimitIntervalMs: 1 });
    manager.addController(
      {
        reconcile: async (req, ctx) => {
          starts.push(Date.now());
          if (starts.length === 1)
            ctx.controller!.deferNextReconcileForObject(
              (await client.get({ apiVersion: 'test.capi.io/v1', kind: 'Widget', ...req })) as KubeObject,
              600,
            );
        },
      },
      { name: 'defer-time', for: { apiVersion: 'test.capi.io/v1', kind: 'Widget' } },
    );
    const w = await client.create(widget(ns, 'owner'));
    await manager.start();
    await eventually(() => starts.length === 1, 'first reconcile');
    await client.update({ ...w, metadata: { ...w.metadata, labels: { touched: 'yes' } } });
    await eventually(() => starts.length === 2, 'reconciled after the deferral');
    expect(starts[1] - starts[0]).toBeGreaterThanOrEqual(590);
  });

  it('without the ReconcilerRateLimiting gate the handle changes nothing, as upstream', async () => {
    const ns = 'defer-off';
    const informers = new FakeInformers();
    let reconciles = 0;
    manager = new Manager({ client, namespace: ns });
    manager.addController(
      {
        reconcile: async (req, ctx) => {
          const owner = (await client.get({ apiVersion: 'test.capi.io/v1', kind: 'Widget', ...req })) as KubeObject;
          const pod = { apiVersion: 'v1', kind: 'Pod', cache: informers };
          ctx.controller!.deferNextReconcileUntilCacheUpToDate(owner, pod, '50');
          ctx.controller!.deferNextReconcileForObject(owner, 60_000);
          return ++reconciles < 3 ? { requeueAfterMs: 1 } : undefined;
        },
      },
      { name: 'defer-off', for: { apiVersion: 'test.capi.io/v1', kind: 'Widget' } },
    );
    await client.create(widget(ns, 'owner'));
    await manager.start();
    await eventually(() => reconciles === 3, 'requeued at once, neither stale nor deferred');
  });
});
