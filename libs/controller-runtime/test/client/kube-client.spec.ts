import { KubeConfig } from '@kubernetes/client-node';
import { ApiServer } from '@capi/apiserver';
import {
  ApiError,
  CountingClientMetrics,
  isAlreadyExists,
  isConflict,
  isInvalid,
  isNotFound,
  KubeClient,
  LeaderElector,
  NoKindMatchError,
  SharedInformer,
} from '@capi/controller-runtime';
import { testCrd } from '../support/crds';
import { eventually } from '../../src/testing/eventually';
import { KubeObject } from '@capi/apimachinery';

// The client against the project's embedded API server (HTTPS with its own CA, bearer token).
// Fault injection (dropped watches, compaction) is tested against the scriptable server in ../testing.

const widgetCrd = testCrd('Widget', 'widgets');

describe('KubeClient against @capi/apiserver', () => {
  let server: ApiServer;
  let kubeConfig: KubeConfig;
  let client: KubeClient;
  const metrics = new CountingClientMetrics();
  const cmRef = (name: string, namespace = 'default') => ({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name });
  const cm = (name: string, data: Record<string, string> = {}): KubeObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'default' },
    data,
  });

  beforeAll(async () => {
    server = new ApiServer({ storage: { type: 'memory' }, port: 0, host: '127.0.0.1' });
    await server.start();
    kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(server.kubeconfig());
    client = new KubeClient(kubeConfig, { metrics });
  });
  afterAll(async () => {
    client.close();
    await server.stop();
  });

  it('does CRUD over TLS with the kubeconfig CA and token, counting requests by verb', async () => {
    metrics.reset();
    const created = await client.create(cm('a', { k: 'v' }));
    expect(created.metadata.uid).toBeTruthy();
    const updated = await client.update({ ...created, data: { k: 'v2' } });
    expect(updated.data).toEqual({ k: 'v2' });
    expect((await client.patch(cmRef('a'), 'merge', { data: { x: '1' } })).data).toEqual({ k: 'v2', x: '1' });
    expect((await client.patch(cmRef('a'), 'json', [{ op: 'remove', path: '/data/x' }])).data).toEqual({ k: 'v2' });
    expect(await client.delete(cmRef('a'))).toBeUndefined(); // gone: the server answers with a Status
    expect(await client.tryGet(cmRef('a'))).toBeUndefined();
    expect(metrics.writes()).toBe(5);
    expect(metrics.count('get')).toBe(1);
  });

  it('delete answers with the object while a finalizer keeps it, at the version that marked it deleting', async () => {
    const created = await client.create({ ...cm('fin'), metadata: { ...cm('fin').metadata, finalizers: ['test/x'] } });
    const deleting = await client.delete(cmRef('fin'));
    expect(deleting?.metadata.deletionTimestamp).toBeTruthy();
    expect(Number(deleting?.metadata.resourceVersion)).toBeGreaterThan(Number(created.metadata.resourceVersion));
    expect((await client.get(cmRef('fin'))).metadata.resourceVersion).toBe(deleting?.metadata.resourceVersion);
    await client.patch(cmRef('fin'), 'merge', { metadata: { finalizers: null } });
  });

  it('maps 404, 409 AlreadyExists, 409 Conflict and 422 Invalid to ApiError with the Status', async () => {
    expect(isNotFound(await client.get(cmRef('missing')).catch((e) => e))).toBe(true);
    const c = await client.create(cm('dup'));
    expect(isAlreadyExists(await client.create(cm('dup')).catch((e) => e))).toBe(true);
    await client.update({ ...c, data: { a: 'b' } });
    const conflict = await client.update({ ...c, data: { stale: 'x' } }).catch((e) => e);
    expect(isConflict(conflict)).toBe(true);
    expect((conflict as ApiError).status.details?.name).toBe('dup');
    expect(isInvalid(await client.create(cm('Not_A_Valid_Name')).catch((e) => e))).toBe(true);
  });

  it('server-side applies with fieldManager and force, honouring dryRun', async () => {
    const applied = await client.apply(cm('ssa', { a: '1' }), { fieldManager: 'tester', force: true });
    expect(applied.metadata.managedFields?.map((m) => [m.manager, m.operation])).toContainEqual(['tester', 'Apply']);
    const dry = await client.apply(cm('ssa', { a: '2' }), { fieldManager: 'tester', dryRun: true });
    expect(dry.data).toEqual({ a: '2' });
    expect((await client.get(cmRef('ssa'))).data).toEqual({ a: '1' });
  });

  it('finds a CRD installed after a miss, and writes status through the subresource', async () => {
    const w = {
      apiVersion: 'test.capi.io/v1',
      kind: 'Widget',
      metadata: { name: 'w', namespace: 'default' },
      spec: { size: 1 },
    };
    expect(await client.create(w).catch((e) => e)).toBeInstanceOf(NoKindMatchError);
    await client.create(widgetCrd as unknown as KubeObject);
    const created = (await eventually(() => client.create(w).catch(() => undefined), 'widget served')) as KubeObject;
    const withStatus = await client.updateStatus({ ...created, spec: { size: 99 }, status: { ready: true } });
    expect(withStatus.status).toEqual({ ready: true });
    expect(withStatus.spec).toEqual({ size: 1 });
    const patched = await client.patch(
      { apiVersion: 'test.capi.io/v1', kind: 'Widget', namespace: 'default', name: 'w' },
      'merge',
      { status: { ready: false } },
      { subresource: 'status' },
    );
    expect(patched.status).toEqual({ ready: false });
  });

  it('rejects a wrong token with 401', async () => {
    const kc = new KubeConfig();
    kc.loadFromString(server.kubeconfig().replace(/token: .*/, 'token: wrong'));
    const bad = new KubeClient(kc);
    const err = await bad.list('v1', 'ConfigMap').catch((e) => e);
    bad.close();
    expect((err as ApiError).code).toBe(401);
  });

  it('metadataOnly: lists, watches and feeds a metadata informer with metadata only, under the kind read', async () => {
    const secret = (name: string): KubeObject => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace: 'kube-public', labels: { meta: 'only' } },
      data: { token: Buffer.from(name).toString('base64') },
    });
    await client.create(secret('ms1'));
    const list = await client.list('v1', 'Secret', {
      namespace: 'kube-public',
      labelSelector: 'meta=only',
      metadataOnly: true,
    });
    expect(list).toMatchObject({ apiVersion: 'v1', kind: 'SecretList' });
    expect(list.items).toEqual([
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: expect.objectContaining({ name: 'ms1', labels: { meta: 'only' } }),
      },
    ]);
    const informer = new SharedInformer(client, 'v1', 'Secret', {
      namespace: 'kube-public',
      labelSelector: 'meta=only',
      metadataOnly: true,
    });
    const seen: KubeObject[] = [];
    informer.addEventHandler({ onAdd: (o) => seen.push(o), onUpdate: (_, o) => seen.push(o) });
    informer.start();
    try {
      expect(await informer.waitForSync(5000)).toBe(true);
      await client.create(secret('ms2'));
      await client.patch({ apiVersion: 'v1', kind: 'Secret', namespace: 'kube-public', name: 'ms1' }, 'merge', {
        data: { token: Buffer.from('rotated').toString('base64') },
      });
      await eventually(() => seen.length === 3, 'add ms1, add ms2, update ms1');
      for (const o of seen) expect(Object.keys(o).sort()).toEqual(['apiVersion', 'kind', 'metadata']);
      expect(seen.map((o) => `${o.kind} ${o.metadata.name}`)).toEqual(['Secret ms1', 'Secret ms2', 'Secret ms1']);
    } finally {
      await informer.stop();
    }
  });

  it('lists in pages and feeds an informer from list+watch', async () => {
    for (const n of ['p1', 'p2', 'p3'])
      await client.create({ ...cm(n), metadata: { name: n, namespace: 'kube-public' } });
    const page1 = await client.list('v1', 'ConfigMap', { namespace: 'kube-public', limit: 2 });
    expect(page1.items).toHaveLength(2);
    expect(page1.items[0].kind).toBe('ConfigMap');
    const page2 = await client.list('v1', 'ConfigMap', {
      namespace: 'kube-public',
      limit: 2,
      continue: page1.metadata.continue,
    });
    expect(page2.items.map((i) => i.metadata.name)).toEqual(['p3']);
    const informer = new SharedInformer(client, 'v1', 'ConfigMap', { namespace: 'kube-public', pageSize: 2 });
    const seen: string[] = [];
    informer.addEventHandler({
      onAdd: (o) => seen.push(`add ${o.metadata.name}`),
      onDelete: (o) => seen.push(`delete ${o.metadata.name}`),
    });
    informer.start();
    try {
      expect(await informer.waitForSync(5000)).toBe(true);
      await client.create({ ...cm('p4'), metadata: { name: 'p4', namespace: 'kube-public' } });
      await client.delete(cmRef('p1', 'kube-public'));
      await eventually(() => seen.includes('delete p1'), 'delete event');
      expect(seen).toEqual(expect.arrayContaining(['add p1', 'add p2', 'add p3', 'add p4', 'delete p1']));
    } finally {
      await informer.stop();
    }
  });

  it('elects a leader on a Lease', async () => {
    const noop = { onStartedLeading: () => undefined, onStoppedLeading: () => undefined };
    const a = new LeaderElector(client, { namespace: 'kube-node-lease', name: 'lock', identity: 'a' }, noop);
    const b = new LeaderElector(client, { namespace: 'kube-node-lease', name: 'lock', identity: 'b' }, noop);
    expect(await a.tryAcquireOrRenew()).toBe(true);
    expect(await b.tryAcquireOrRenew()).toBe(false);
    expect(await a.tryAcquireOrRenew()).toBe(true);
    const lease = await client.get({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      namespace: 'kube-node-lease',
      name: 'lock',
    });
    expect(lease.spec).toMatchObject({ holderIdentity: 'a', leaseDurationSeconds: 15 });
  });
});
