import * as http from 'http';
import { AddressInfo } from 'net';
import { KubeConfig } from '@kubernetes/client-node';
import { FakeApiServer } from '../support/fake-apiserver';
import {
  ApiError,
  CountingClientMetrics,
  isAlreadyExists,
  isConflict,
  isNotFound,
  KubeClient,
  NoKindMatchError,
  WatchEvent,
} from '@capi/controller-runtime';
import { KubeObject } from '@capi/apimachinery';

describe('KubeClient against a list/watch test server', () => {
  let server: FakeApiServer;
  let client: KubeClient;
  let metrics: CountingClientMetrics;
  const cm = (name: string, data: Record<string, string> = {}): KubeObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'default' },
    data,
  });

  beforeAll(async () => {
    server = await new FakeApiServer().start();
  });
  beforeEach(() => {
    metrics = new CountingClientMetrics();
    client = new KubeClient(server.kubeConfig(), { metrics });
  });
  afterEach(() => client.close());
  afterAll(() => server.stop());

  it('creates, gets, updates, patches and deletes with the kubeconfig token', async () => {
    const created = await client.create(cm('a', { k: 'v' }));
    expect(created.metadata.uid).toBeTruthy();
    const got = await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'a' });
    expect(got.data).toEqual({ k: 'v' });
    const updated = await client.update({ ...got, data: { k: 'v2' } });
    expect(Number(updated.metadata.resourceVersion)).toBeGreaterThan(Number(got.metadata.resourceVersion));
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'a' };
    const merged = await client.patch(ref, 'merge', { data: { extra: 'x' } });
    expect(merged.data).toEqual({ k: 'v2', extra: 'x' });
    const jsonPatched = await client.patch(ref, 'json', [{ op: 'remove', path: '/data/extra' }]);
    expect(jsonPatched.data).toEqual({ k: 'v2' });
    await client.delete(ref);
    expect(await client.tryGet(ref)).toBeUndefined();
    expect(metrics.count('create')).toBe(1);
    expect(metrics.count('patch', 'ConfigMap')).toBe(2);
    expect(metrics.writes()).toBe(5);
    const discoveryCalls = server.requests.filter((r) => r.path === '/api/v1').length;
    expect(discoveryCalls).toBe(1); // the REST mapping is cached
  });

  it('metadataOnly asks for PartialObjectMetadata; a server answering with whole objects has them cut to metadata', async () => {
    await client.create({
      ...cm('m1', { secret: 'x' }),
      metadata: { name: 'm1', namespace: 'meta', labels: { a: 'b' } },
    });
    const list = await client.list('v1', 'ConfigMap', { namespace: 'meta', metadataOnly: true });
    expect(server.requests.at(-1)?.accept).toBe(
      'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json',
    );
    expect(list.items).toEqual([
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: expect.objectContaining({ name: 'm1', labels: { a: 'b' } }) },
    ]);
    const events: WatchEvent[] = [];
    const h = await client.watch(
      'v1',
      'ConfigMap',
      { namespace: 'meta', resourceVersion: list.metadata.resourceVersion, metadataOnly: true },
      (ev) => events.push(ev),
    );
    try {
      expect(server.requests.at(-1)?.accept).toBe(
        'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json',
      );
      await client.create({ ...cm('m2', { secret: 'y' }), metadata: { name: 'm2', namespace: 'meta' } });
      const deadline = Date.now() + 5_000;
      while (!events.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(events).toEqual([
        {
          type: 'ADDED',
          object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: expect.objectContaining({ name: 'm2' }) },
        },
      ]);
    } finally {
      h.stop();
    }
    await client.list('v1', 'ConfigMap', { namespace: 'meta' });
    expect(server.requests.at(-1)?.accept).toBe('application/json');
  });

  it("sends the User-Agent it was given on every request (the API server names patches' field manager after it)", async () => {
    const named = new KubeClient(server.kubeConfig(), {
      userAgent: 'manager/v1 test (linux/amd64) cluster.x-k8s.io/unknown',
    });
    try {
      const before = server.requests.length;
      await named.create(cm('ua'));
      await named.patch({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'ua' }, 'merge', {
        data: { a: 'b' },
      });
      const sent = server.requests.slice(before);
      expect(sent.length).toBeGreaterThanOrEqual(2);
      expect(new Set(sent.map((r) => r.userAgent))).toEqual(
        new Set(['manager/v1 test (linux/amd64) cluster.x-k8s.io/unknown']),
      );
    } finally {
      named.close();
    }
  });

  it('sends apply as application/apply-patch+yaml with fieldManager and force, and status to the subresource', async () => {
    const w = {
      apiVersion: 'test.capi.io/v1',
      kind: 'Widget',
      metadata: { name: 'w', namespace: 'ns' },
      spec: { size: 1 },
    };
    await client.apply(w, { fieldManager: 'tester', force: true });
    const applyReq = server.requests.filter((r) => r.method === 'PATCH').pop()!;
    expect(applyReq.path).toBe('/apis/test.capi.io/v1/namespaces/ns/widgets/w');
    expect(applyReq.query).toMatchObject({ fieldManager: 'tester', force: 'true' });
    const current = await client.get({ apiVersion: 'test.capi.io/v1', kind: 'Widget', namespace: 'ns', name: 'w' });
    const withStatus = await client.updateStatus({ ...current, spec: { size: 99 }, status: { ready: true } });
    expect(withStatus.status).toEqual({ ready: true });
    expect(withStatus.spec).toEqual({ size: 1 });
    expect(server.requests.filter((r) => r.method === 'PUT').pop()!.path).toMatch(/\/widgets\/w\/status$/);
    await client.patch(
      { apiVersion: 'test.capi.io/v1', kind: 'Widget', namespace: 'ns', name: 'w' },
      'merge',
      { spec: { size: 5 } },
      { dryRun: true },
    );
    expect(server.requests.pop()!.query.dryRun).toBe('All');
  });

  it('creates at a subresource (as SubResource("eviction").Create) and sends gracePeriodSeconds on delete', async () => {
    await client.create(cm('evictme'));
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'evictme' };
    const eviction = {
      apiVersion: 'policy/v1',
      kind: 'Eviction',
      metadata: { name: 'evictme', namespace: 'default' },
      deleteOptions: { gracePeriodSeconds: 1 },
    };
    const out = await client.createSubresource<{ status: string }>(ref, 'eviction', eviction, { dryRun: true });
    expect(out.status).toBe('Success');
    const post = server.requests.filter((r) => r.method === 'POST').pop()!;
    expect(post.path).toBe('/api/v1/namespaces/default/configmaps/evictme/eviction');
    expect(post.query.dryRun).toBe('All');
    expect(post.body).toEqual(eviction);
    expect(metrics.count('create', 'ConfigMap')).toBe(2);
    await expect(client.createSubresource({ ...ref, name: 'missing' }, 'eviction', eviction)).rejects.toMatchObject({
      code: 404,
    });
    await expect(client.createSubresource(ref, '', eviction)).rejects.toMatchObject({ code: 400 });

    await client.delete(ref, { gracePeriodSeconds: 0 });
    expect(server.requests.filter((r) => r.method === 'DELETE').pop()!.body).toMatchObject({ gracePeriodSeconds: 0 });
    await client.create(cm('evictme'));
    await client.delete(ref);
    expect(server.requests.filter((r) => r.method === 'DELETE').pop()!.body).not.toHaveProperty('gracePeriodSeconds');
  });

  it('maps server errors to ApiError with the Status (404, 409 AlreadyExists, 409 Conflict)', async () => {
    await expect(
      client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'missing' }),
    ).rejects.toThrow(expect.objectContaining({ code: 404 }));
    const c = await client.create(cm('dup'));
    const dup = await client.create(cm('dup')).catch((e) => e);
    expect(isAlreadyExists(dup)).toBe(true);
    expect((dup as ApiError).status.details?.name).toBe('dup');
    await client.update({ ...c, data: { a: 'b' } });
    expect(isConflict(await client.update({ ...c, data: { stale: 'yes' } }).catch((e) => e))).toBe(true);
    expect(isNotFound(await client.get({ ...c, name: 'nope', namespace: 'default' }).catch((e) => e))).toBe(true);
  });

  it('rejects bad input with a 400 Status instead of sending it', async () => {
    const noNs = await client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }).catch((e) => e);
    expect(noNs).toBeInstanceOf(ApiError);
    expect((noNs as ApiError).code).toBe(400);
    await expect(client.apply(cm('x'), { fieldManager: '' })).rejects.toBeInstanceOf(ApiError);
  });

  it('fails with 401 for a wrong token', async () => {
    const bad = new KubeClient(server.kubeConfig('wrong'));
    const err = await bad.list('v1', 'ConfigMap').catch((e) => e);
    bad.close();
    expect((err as ApiError).code).toBe(401);
  });

  it('refreshes discovery on a miss so kinds installed later resolve', async () => {
    await expect(client.list('later.capi.io/v1', 'Thing')).rejects.toBeInstanceOf(NoKindMatchError);
    server.addResource({ apiVersion: 'later.capi.io/v1', kind: 'Thing', plural: 'things', namespaced: false });
    const list = await client.list('later.capi.io/v1', 'Thing');
    expect(list.items).toEqual([]);
  });

  it('lists with paging and fills in apiVersion/kind of items', async () => {
    for (const n of ['p1', 'p2', 'p3']) await client.create({ ...cm(n), metadata: { name: n, namespace: 'paging' } });
    const page1 = await client.list('v1', 'ConfigMap', { namespace: 'paging', limit: 2 });
    expect(page1.items.map((i) => i.metadata.name)).toEqual(['p1', 'p2']);
    expect(page1.items[0].kind).toBe('ConfigMap');
    const page2 = await client.list('v1', 'ConfigMap', {
      namespace: 'paging',
      limit: 2,
      continue: page1.metadata.continue,
    });
    expect(page2.items.map((i) => i.metadata.name)).toEqual(['p3']);
    expect(page2.metadata.continue).toBeUndefined();
  });

  it('sends matchingFields as field selector terms after an explicit fieldSelector (as controller-runtime)', async () => {
    await client.list('v1', 'ConfigMap', {
      namespace: 'paging',
      fieldSelector: 'metadata.name!=p1',
      matchingFields: { 'metadata.name': 'p2' },
    });
    const sent = server.requests.filter((r) => r.path === '/api/v1/namespaces/paging/configmaps').pop();
    expect(sent?.query.fieldSelector).toBe('metadata.name!=p1,metadata.name=p2');
  });

  it('streams watch events and ends done on stop; 410 arrives as an ERROR event', async () => {
    const events: WatchEvent[] = [];
    const h = await client.watch(
      'v1',
      'ConfigMap',
      { namespace: 'watch', resourceVersion: server.currentResourceVersion() },
      (e) => events.push(e),
    );
    await client.create({ ...cm('w1'), metadata: { name: 'w1', namespace: 'watch' } });
    while (events.length < 1) await new Promise((r) => setTimeout(r, 5));
    expect(events[0].type).toBe('ADDED');
    h.stop();
    await h.done;
    server.compact();
    const errors: WatchEvent[] = [];
    const old = await client.watch('v1', 'ConfigMap', { resourceVersion: '1' }, (e) => errors.push(e));
    await old.done;
    expect(errors[0].type).toBe('ERROR');
    expect((errors[0].object as unknown as { code: number }).code).toBe(410);
  });

  it('times out a request the server never answers', async () => {
    const hung = http.createServer(() => undefined);
    await new Promise<void>((r) => hung.listen(0, '127.0.0.1', r));
    const kc = new KubeConfig();
    const url = `http://127.0.0.1:${(hung.address() as AddressInfo).port}`;
    kc.loadFromOptions({
      clusters: [{ name: 'h', server: url, skipTLSVerify: true }],
      users: [{ name: 'u', token: 't' }],
      contexts: [{ name: 'h', cluster: 'h', user: 'u' }],
      currentContext: 'h',
    });
    const c = new KubeClient(kc, { requestTimeoutMs: 50 });
    try {
      // discovery is the first request any call makes; it must give up instead of hanging
      await expect(c.mapper.mapping('v1', 'ConfigMap')).rejects.toThrow(/timed out/);
    } finally {
      c.close();
      hung.closeAllConnections();
      await new Promise((r) => hung.close(r));
    }
  }, 40_000);
});
