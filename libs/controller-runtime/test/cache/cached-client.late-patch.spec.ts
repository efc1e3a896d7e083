import { CachedClient, InformerCache, KubeClient } from '@capi/controller-runtime';
import type { KubeObject } from '@capi/apimachinery';
import { FakeApiServer } from '../support/fake-apiserver';
import { GatedLimiter } from '../support/gated-limiter';

// Two controllers of one manager write the same object back to back: a plain patch, then a patch guarded by the
// resourceVersion it reads from the cache. Sent together, the guarded one would carry the version from before the
// first and be refused; built late, it sees the first one's result.
describe('CachedClient: a PatchBuilder runs after the earlier writes to its object are in the cache', () => {
  let server: FakeApiServer;
  let limiter: GatedLimiter;
  let direct: KubeClient;
  let cache: InformerCache;
  let client: CachedClient;
  const ref = (name: string) => ({ apiVersion: 'test.capi.io/v1', kind: 'Gadget', namespace: 'c', name });

  beforeAll(async () => {
    server = await new FakeApiServer().start();
    limiter = new GatedLimiter();
    direct = new KubeClient(server.kubeConfig(), { rateLimit: limiter });
    cache = new InformerCache(direct, { namespace: 'c' });
    cache.start();
    client = new CachedClient(cache, direct);
  });
  afterAll(async () => {
    await cache.stop();
    direct.close();
    await server.stop();
  });

  const gadget = (name: string): KubeObject => ({
    apiVersion: 'test.capi.io/v1',
    kind: 'Gadget',
    metadata: { name, namespace: 'c' },
  });

  it('waits for an earlier write to the same object, and for the cache to show it', async () => {
    const created = await client.create(gadget('g'));
    await cache.waitForResourceVersion(ref('g'), created.metadata.resourceVersion!, 5_000);

    limiter.close();
    const first = client.patch<KubeObject>(ref('g'), 'merge', { metadata: { labels: { first: 'done' } } });
    let seen: KubeObject | undefined;
    const second = client.patch<KubeObject>(ref('g'), 'merge', async () => {
      seen = await client.get(ref('g'));
      return { metadata: { resourceVersion: seen.metadata.resourceVersion, labels: { second: 'done' } } };
    });
    limiter.release();
    const [afterFirst] = await Promise.all([first, second]);
    expect(seen?.metadata.labels).toEqual({ first: 'done' });
    expect(seen?.metadata.resourceVersion).toBe(afterFirst.metadata.resourceVersion);
  });

  it('does not wait for writes to other objects, nor for writes issued after it', async () => {
    await client.create(gadget('a'));
    const b = await client.create(gadget('b'));
    await cache.waitForResourceVersion(ref('b'), b.metadata.resourceVersion!, 5_000);

    limiter.close();
    const other = client.patch(ref('a'), 'merge', { metadata: { labels: { other: 'object' } } });
    let seen: KubeObject | undefined;
    const guarded = client.patch(ref('b'), 'merge', async () => {
      seen = await client.get(ref('b'));
      return { metadata: { labels: { guarded: 'done' } } };
    });
    const later = client.patch(ref('b'), 'merge', { metadata: { labels: { later: 'done' } } });
    limiter.release();
    await Promise.all([other, guarded, later]);
    // Built at once: the object as it was before either of the other writes.
    expect(seen?.metadata.resourceVersion).toBe(b.metadata.resourceVersion);
  });
});
