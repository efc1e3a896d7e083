import { KubeClient, SharedInformer } from '@capi/controller-runtime';
import { eventually } from '../../src/testing/eventually';
import { FakeApiServer } from '../support/fake-apiserver';
import { KubeObject } from '@capi/apimachinery';
import { NAMESPACE_INDEX } from '../../src/cache/informer';

describe('SharedInformer', () => {
  let server: FakeApiServer;
  let client: KubeClient;
  let informer: SharedInformer | undefined;
  let ns = 0;
  let namespace = '';
  const widget = (name: string, spec: Record<string, unknown> = {}): KubeObject => ({
    apiVersion: 'test.capi.io/v1',
    kind: 'Widget',
    metadata: { name, namespace },
    spec,
  });
  const watchRequests = () =>
    server.requests.filter(
      (r) => r.query.watch === 'true' && r.path === `/apis/test.capi.io/v1/namespaces/${namespace}/widgets`,
    );

  beforeAll(async () => {
    server = await new FakeApiServer().start();
    client = new KubeClient(server.kubeConfig());
  });
  beforeEach(() => {
    namespace = `ns${++ns}`;
  });
  afterEach(async () => {
    await informer?.stop();
    informer = undefined;
  });
  afterAll(async () => {
    client.close();
    await server.stop();
  });

  const startInformer = (pageSize = 500) => {
    informer = new SharedInformer(client, 'test.capi.io/v1', 'Widget', { namespace, pageSize, initialBackoffMs: 10 });
    const seen: string[] = [];
    informer.addEventHandler({
      onAdd: (o) => seen.push(`add ${o.metadata.name}`),
      onUpdate: (_old, o) => seen.push(`update ${o.metadata.name}`),
      onDelete: (o) => seen.push(`delete ${o.metadata.name}`),
    });
    informer.start();
    return { informer, seen };
  };

  it('lists in pages, syncs, then streams add/update/delete from the watch', async () => {
    for (const n of ['a', 'b', 'c', 'd', 'e']) await client.create(widget(n));
    const { informer, seen } = startInformer(2);
    expect(await informer.waitForSync(5000)).toBe(true);
    expect(
      informer
        .list()
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(
      server.requests.filter((r) => r.query.limit === '2' && r.path.endsWith(`${namespace}/widgets`)),
    ).toHaveLength(3);
    await client.create(widget('f'));
    await client.patch({ apiVersion: 'test.capi.io/v1', kind: 'Widget', namespace, name: 'a' }, 'merge', {
      spec: { x: 1 },
    });
    await client.delete({ apiVersion: 'test.capi.io/v1', kind: 'Widget', namespace, name: 'b' });
    await eventually(() => seen.includes('delete b'), 'delete event');
    expect(seen.slice(5)).toEqual(['add f', 'update a', 'delete b']);
    expect(informer.get(namespace, 'a')?.spec).toEqual({ x: 1 });
    expect(informer.get(namespace, 'b')).toBeUndefined();
    expect(informer.lastResourceVersion()).toBe(server.currentResourceVersion());
  });

  it('resumes from the last seen resourceVersion after a dropped watch, without relisting', async () => {
    await client.create(widget('a'));
    const { informer, seen } = startInformer();
    await informer.waitForSync(5000);
    await client.create(widget('b'));
    await eventually(() => seen.includes('add b'), 'add b');
    const rvBeforeDrop = informer.lastResourceVersion();
    server.suspendWatchDelivery();
    await client.create(widget('c')); // happens while the connection is "down"
    server.dropWatches();
    server.suspendWatchDelivery(false);
    await eventually(() => seen.includes('add c'), 'add c after resume');
    expect(informer.stats.lists).toBe(1);
    const watches = watchRequests();
    expect(watches.length).toBeGreaterThanOrEqual(2);
    expect(watches[watches.length - 1].query.resourceVersion).toBe(rvBeforeDrop);
    expect(seen).toEqual(['add a', 'add b', 'add c']);
  });

  it('relists on 410 Gone and emits what changed while it was away', async () => {
    await client.create(widget('keep', { v: 1 }));
    await client.create(widget('gone'));
    const { informer, seen } = startInformer();
    await informer.waitForSync(5000);
    server.suspendWatchDelivery();
    await client.create(widget('new'));
    await client.delete({ apiVersion: 'test.capi.io/v1', kind: 'Widget', namespace, name: 'gone' });
    await client.patch({ apiVersion: 'test.capi.io/v1', kind: 'Widget', namespace, name: 'keep' }, 'merge', {
      spec: { v: 2 },
    });
    server.compact();
    server.dropWatches();
    server.suspendWatchDelivery(false);
    await eventually(() => informer.stats.lists === 2 && seen.length === 5, 'relist');
    expect(informer.stats.relistsAfterGone).toBe(1);
    expect(seen.slice(2).sort()).toEqual(['add new', 'delete gone', 'update keep']);
    expect(informer.get(namespace, 'keep')?.spec).toEqual({ v: 2 });
    // and it keeps watching from the relist's resourceVersion
    await client.create(widget('after'));
    await eventually(() => seen.includes('add after'), 'add after relist');
  });

  it('advances its resourceVersion on bookmarks and replays adds to late handlers', async () => {
    await client.create(widget('a'));
    const { informer } = startInformer();
    await informer.waitForSync(5000);
    await eventually(() => server.openWatchCount() > 0, 'watch open');
    await client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'other', namespace } }); // other kind bumps RV
    server.bookmark();
    await eventually(() => informer.lastResourceVersion() === server.currentResourceVersion(), 'bookmark RV');
    const late: string[] = [];
    informer.addEventHandler({ onAdd: (o) => late.push(o.metadata.name!) });
    expect(late).toEqual(['a']);
  });

  it('keeps running when a handler throws', async () => {
    const { informer, seen } = startInformer();
    informer.addEventHandler({
      onAdd: () => {
        throw new Error('boom');
      },
    });
    await informer.waitForSync(5000);
    await client.create(widget('x'));
    await client.create(widget('y'));
    await eventually(() => seen.includes('add y'), 'add y');
  });

  it('stores listed and watched objects as its transform returns them; one that throws stores the object as it came', async () => {
    await client.create(widget('listed', { n: 1 }));
    informer = new SharedInformer(client, 'test.capi.io/v1', 'Widget', {
      namespace,
      initialBackoffMs: 10,
      transform: (o) => {
        if (o.metadata.name === 'bad') throw new Error('no');
        return { ...o, spec: { ...(o.spec as object), transformed: true } };
      },
    });
    const updates: KubeObject[] = [];
    informer.addEventHandler({ onAdd: (o) => updates.push(o), onUpdate: (_old, o) => updates.push(o) });
    informer.start();
    await informer.waitForSync(5000);
    expect(informer.get(namespace, 'listed')!.spec).toEqual({ n: 1, transformed: true });
    await client.create(widget('watched', { n: 2 }));
    await client.create(widget('bad', { n: 3 }));
    await eventually(() => !!informer!.get(namespace, 'bad'), 'bad stored');
    expect(informer.get(namespace, 'watched')!.spec).toEqual({ n: 2, transformed: true });
    expect(informer.get(namespace, 'bad')!.spec).toEqual({ n: 3 });
    // Handlers see what was stored.
    expect(updates.find((o) => o.metadata.name === 'watched')).toBe(informer.get(namespace, 'watched'));
  });

  describe('secondary indexes', () => {
    const byOwner = (o: KubeObject) => [(o.spec as { owner?: string } | undefined)?.owner ?? ''];
    const names = (objs: KubeObject[]) => objs.map((o) => o.metadata.name).sort();
    const ref = (name: string) => ({ apiVersion: 'test.capi.io/v1', kind: 'Widget', namespace, name });
    const indexed = () => {
      informer = new SharedInformer(client, 'test.capi.io/v1', 'Widget', { namespace, initialBackoffMs: 10 });
      informer.addIndexer('owner', byOwner);
      return informer;
    };

    it('keeps the index in sync with adds, updates that move an object between values, and deletes', async () => {
      await client.create(widget('a', { owner: 'x' }));
      await client.create(widget('b', { owner: 'y' }));
      const inf = indexed();
      inf.start();
      await inf.waitForSync(5000);
      expect(names(inf.byIndex('owner', 'x'))).toEqual(['a']);
      await client.create(widget('c', { owner: 'x' }));
      await eventually(() => inf.byIndex('owner', 'x').length === 2, 'add indexed');
      await client.patch(ref('a'), 'merge', { spec: { owner: 'y' } });
      await eventually(() => inf.byIndex('owner', 'x').length === 1, 'update moved a');
      expect(names(inf.byIndex('owner', 'y'))).toEqual(['a', 'b']);
      // the bucket holds the stored (newest) object, not the one indexed first
      await client.patch(ref('c'), 'merge', { spec: { owner: 'x', n: 1 } });
      await eventually(() => (inf.byIndex('owner', 'x')[0]?.spec as { n?: number }).n === 1, 'update in place');
      await client.delete(ref('b'));
      await eventually(() => inf.byIndex('owner', 'y').length === 1, 'delete unindexed');
      expect(names(inf.byIndex('owner', 'z'))).toEqual([]);
      expect(names(inf.byIndex(NAMESPACE_INDEX, namespace))).toEqual(['a', 'c']);
    });

    it('reindexes what changed during a relist after 410 Gone', async () => {
      await client.create(widget('stay', { owner: 'x' }));
      await client.create(widget('move', { owner: 'x' }));
      await client.create(widget('gone', { owner: 'x' }));
      const inf = indexed();
      inf.start();
      await inf.waitForSync(5000);
      server.suspendWatchDelivery();
      await client.patch(ref('move'), 'merge', { spec: { owner: 'y' } });
      await client.delete(ref('gone'));
      await client.create(widget('new', { owner: 'y' }));
      server.compact();
      server.dropWatches();
      server.suspendWatchDelivery(false);
      await eventually(() => inf.stats.lists === 2 && inf.get(namespace, 'new') !== undefined, 'relist');
      expect(names(inf.byIndex('owner', 'x'))).toEqual(['stay']);
      expect(names(inf.byIndex('owner', 'y'))).toEqual(['move', 'new']);
    });

    it('refuses unknown, duplicate and late indexes; a throwing index function leaves the object unindexed', async () => {
      const inf = indexed();
      expect(() => inf.byIndex('nope', 'x')).toThrow(/no index "nope"/);
      expect(() => inf.addIndexer('owner', byOwner)).toThrow(/already exists/);
      inf.addIndexer('picky', (o) => {
        if (o.metadata.name === 'bad') throw new Error('no');
        return ['all'];
      });
      await client.create(widget('bad'));
      await client.create(widget('good'));
      inf.start();
      await inf.waitForSync(5000);
      expect(() => inf.addIndexer('late', byOwner)).toThrow(/before the informer starts/);
      expect(names(inf.byIndex('picky', 'all'))).toEqual(['good']);
      expect(inf.list()).toHaveLength(2);
    });
  });
});
