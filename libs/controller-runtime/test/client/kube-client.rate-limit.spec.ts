import { FakeApiServer } from '../support/fake-apiserver';
import { KubeClient, type WatchEvent } from '@capi/controller-runtime';
import { type KubeObject } from '@capi/apimachinery';
import { GatedLimiter } from '../support/gated-limiter';

// client-go applies the rest client's rate limiter to every request (discovery, the list and the watch request
// included); events on an open watch stream are not requests and are not throttled.
describe('KubeClient client-side rate limit', () => {
  let server: FakeApiServer;
  beforeAll(async () => {
    server = await new FakeApiServer().start();
  });
  afterAll(() => server.stop());

  const cm = (name: string): KubeObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'default' },
    data: {},
  });

  it('every request waits for a token, a watch only for its opening request', async () => {
    const limiter = new GatedLimiter();
    const client = new KubeClient(server.kubeConfig(), { rateLimit: limiter });
    const writer = new KubeClient(server.kubeConfig());
    try {
      await client.create(cm('a'));
      const afterFirst = limiter.waits; // discovery of v1 and the create
      expect(afterFirst).toBeGreaterThanOrEqual(2);
      await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'a' });
      await client.list('v1', 'ConfigMap', { namespace: 'default' });
      expect(limiter.waits).toBe(afterFirst + 2);

      const events: WatchEvent[] = [];
      const watch = await client.watch('v1', 'ConfigMap', { namespace: 'default' }, (e) => events.push(e));
      expect(limiter.waits).toBe(afterFirst + 3);
      // With no token left, events still stream on the open watch.
      limiter.close();
      for (const n of ['b', 'c', 'd']) await writer.create(cm(n));
      await waitFor(
        () =>
          events.filter((e) => e.type === 'ADDED' && ['b', 'c', 'd'].includes(e.object.metadata.name!)).length === 3,
      );
      expect(limiter.waits).toBe(afterFirst + 3);
      // ...while a request waits for its token.
      let got = false;
      const pending = client
        .get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'b' })
        .then(() => (got = true));
      await new Promise((r) => setTimeout(r, 50));
      expect(got).toBe(false);
      limiter.release();
      await pending;
      expect(got).toBe(true);
      watch.stop();
    } finally {
      client.close();
      writer.close();
    }
  });

  it('a patch body given as a function is built once the request has its token, right before it is sent', async () => {
    const limiter = new GatedLimiter();
    const sent: number[] = [];
    const client = new KubeClient(server.kubeConfig(), {
      rateLimit: limiter,
      metrics: { observe: (r) => void (r.verb === 'patch' && sent.push(r.code)) },
    });
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'deferred' };
    try {
      await client.create(cm('deferred'));
      limiter.close();
      let built = 0;
      const patched = client.patch<KubeObject>(ref, 'merge', async () => {
        built++;
        return { metadata: { labels: { built: 'late' } } };
      });
      await new Promise((r) => setTimeout(r, 50));
      expect(built).toBe(0);
      limiter.release();
      expect((await patched).metadata.labels).toEqual({ built: 'late' });
      expect(built).toBe(1);
      expect(sent).toEqual([200]);

      // A builder that fails: its error, and no request counted (none was sent).
      await expect(
        client.patch(ref, 'merge', async () => {
          throw new Error('cache read failed');
        }),
      ).rejects.toThrow('cache read failed');
      expect(sent).toEqual([200]);
    } finally {
      client.close();
    }
  });

  it("one object's writes leave in call order: a later write waits while an earlier one builds its body", async () => {
    const client = new KubeClient(server.kubeConfig());
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'ordered' };
    try {
      await client.create(cm('ordered'));
      let letBuild!: () => void;
      const mayBuild = new Promise<void>((r) => (letBuild = r));
      const early = client.patch(ref, 'merge', async () => {
        await mayBuild;
        return { metadata: { labels: { last: 'early' } } };
      });
      const late = client.patch(ref, 'merge', { metadata: { labels: { last: 'late' } } });
      await new Promise((r) => setTimeout(r, 50));
      letBuild();
      await Promise.all([early, late]);
      expect((await client.get<KubeObject>(ref)).metadata.labels).toEqual({ last: 'late' });
    } finally {
      client.close();
    }
  });

  it("a qps/burst limit is a token bucket per kind: past the burst a request waits for its kind's refill", async () => {
    const client = new KubeClient(server.kubeConfig(), { rateLimit: { qps: 0.01, burst: 2 } });
    const pending = (p: Promise<unknown>) => {
      const answered = p.then(() => 'answered');
      answered.catch(() => undefined);
      return Promise.race([answered, new Promise((r) => setTimeout(() => r('still waiting'), 200))]);
    };
    try {
      // Discovery of v1 has its own bucket; the create and the get take the ConfigMaps' burst.
      await client.create(cm('limited'));
      await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'limited' });
      expect(await pending(client.list('v1', 'ConfigMap', { namespace: 'default' }))).toBe('still waiting'); // 100 s
      // Namespaces are another kind (upstream: another REST client, another bucket).
      expect(await pending(client.list('v1', 'Namespace'))).toBe('answered');
    } finally {
      client.close();
    }
  });
});

async function waitFor(cond: () => boolean, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > until) throw new Error('condition not met');
    await new Promise((r) => setTimeout(r, 10));
  }
}
