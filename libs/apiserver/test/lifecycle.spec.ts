// Semantic suite (watch, finalizers, garbage collection), run through raw HTTPS and @kubernetes/client-node.
import type { KubeObject } from '@capi/controller-runtime';
import { configMap, waitFor, widget } from './support/fixtures';
import { startTestServer, type TestServer } from './support/server';
import { HttpError, refOf, type Ev, type TestClient } from './support/test-client';

let ts: TestServer;
beforeAll(async () => {
  ts = await startTestServer({ historySize: 50 });
});
afterAll(async () => {
  await ts?.server.stop();
});

const gone = async (c: TestClient, o: KubeObject) =>
  c.get(refOf(o)).then(() => false, (e) => e instanceof HttpError && e.code === 404);

const owner = (o: KubeObject, block = false) => ({ apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name!, uid: o.metadata.uid!, ...(block ? { blockOwnerDeletion: true } : {}) });

describe.each([0, 1])('lifecycle semantics via client #%i', (idx) => {
  let c: TestClient;
  const ns = `life-${idx}`;
  const stops: { stop(): void }[] = [];
  beforeAll(async () => {
    c = ts.clients[idx];
    await c.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  });
  afterAll(() => stops.forEach((s) => s.stop()));

  it('watch sees ADDED/MODIFIED/DELETED, resumes from a resourceVersion and filters by label', async () => {
    const events: Ev[] = [];
    stops.push(await c.watch('example.com/v1', 'Widget', ns, { labelSelector: 'watch=me' }, (e) => events.push(e)));
    const w = await c.create(widget('watched', ns, { size: 1 }, { labels: { watch: 'me' } }));
    await c.create(widget('ignored', ns, { size: 1 }));
    const patched = await c.patch(refOf(w), 'merge', { spec: { size: 2 } });
    await c.delete(refOf(w));
    await waitFor(() => events.length >= 3, 5000, 'watch events');
    expect(events.map((e) => [e.type, e.object.metadata.name])).toEqual([['ADDED', 'watched'], ['MODIFIED', 'watched'], ['DELETED', 'watched']]);
    expect(events[1].object.metadata.resourceVersion).toBe(patched.metadata.resourceVersion);

    // Resume after the MODIFIED event: only DELETED is replayed.
    const resumed: Ev[] = [];
    stops.push(await c.watch('example.com/v1', 'Widget', ns, { resourceVersion: patched.metadata.resourceVersion, labelSelector: 'watch=me' }, (e) => resumed.push(e)));
    await waitFor(() => resumed.length >= 1, 5000, 'replayed event');
    expect(resumed.map((e) => e.type)).toEqual(['DELETED']);
  });

  it('watch with a label selector: objects entering the selection are ADDED, leaving it DELETED', async () => {
    const events: Ev[] = [];
    const w = await c.create(widget('mover', ns, { size: 1 }));
    stops.push(await c.watch('example.com/v1', 'Widget', ns, { labelSelector: 'moved=yes' }, (e) => events.push(e)));
    await c.patch(refOf(w), 'merge', { metadata: { labels: { moved: 'yes' } } });
    await c.patch(refOf(w), 'merge', { spec: { size: 2 } });
    await c.patch(refOf(w), 'merge', { metadata: { labels: { moved: null } } });
    await waitFor(() => events.length >= 3, 5000, 'selection events');
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
  });

  it('watch without resourceVersion starts with the current objects; bookmarks when allowed', async () => {
    await c.create(configMap('initial', ns));
    const events: Ev[] = [];
    stops.push(await c.watch('v1', 'ConfigMap', ns, { allowWatchBookmarks: true }, (e) => events.push(e)));
    await waitFor(() => events.some((e) => e.type === 'BOOKMARK'), 5000, 'bookmark');
    expect(events[0]).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'initial' } } });
    const bm = events.find((e) => e.type === 'BOOKMARK')!;
    expect(Number(bm.object.metadata.resourceVersion)).toBeGreaterThan(0);
  });

  it('watch from a compacted resourceVersion gets 410 Expired', async () => {
    for (let i = 0; i < 60; i++) await c.create(configMap(`churn-${i}`, ns));
    const events: Ev[] = [];
    stops.push(await c.watch('v1', 'ConfigMap', ns, { resourceVersion: '1' }, (e) => events.push(e)));
    await waitFor(() => events.length >= 1, 5000, 'error event');
    expect(events[0].type).toBe('ERROR');
    expect(events[0].object).toMatchObject({ kind: 'Status', code: 410, reason: 'Expired' });
  });

  it('delete with finalizers sets deletionTimestamp; removing the last finalizer deletes', async () => {
    const w = await c.create(widget('final', ns, { size: 1 }, { finalizers: ['example.com/a', 'example.com/b'] }));
    await c.delete(refOf(w));
    const terminating = await c.get(refOf(w));
    expect(terminating.metadata.deletionTimestamp).toBeTruthy();
    const one = await c.patch(refOf(w), 'json', [{ op: 'remove', path: '/metadata/finalizers/0' }]);
    expect(one.metadata.finalizers).toEqual(['example.com/b']);
    expect(await gone(c, w)).toBe(false);
    await c.patch(refOf(w), 'merge', { metadata: { finalizers: null } });
    expect(await gone(c, w)).toBe(true);
  });

  it('an object being deleted gains no finalizer: 422 Forbidden naming the new ones, as kube', async () => {
    const w = await c.create(widget('no-new-final', ns, { size: 1 }, { finalizers: ['example.com/a'] }));
    await c.delete(refOf(w));
    const err = await c.patch(refOf(w), 'merge', { metadata: { finalizers: ['example.com/a', 'example.com/z', 'example.com/b'] } }).then(() => undefined, (e) => e);
    expect(err).toBeInstanceOf(HttpError);
    expect(err.code).toBe(422);
    expect(err.status.reason).toBe('Invalid');
    expect(err.status.message).toBe('Widget.example.com "no-new-final" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/b", "example.com/z"}');
    expect((await c.get(refOf(w))).metadata.finalizers).toEqual(['example.com/a']);
    await c.patch(refOf(w), 'merge', { metadata: { finalizers: null } });
    expect(await gone(c, w)).toBe(true);
  });

  it('background deletion: dependents are collected after the owner is gone', async () => {
    const o = await c.create(widget('bg-owner', ns));
    const d1 = await c.create(configMap('bg-dep1', ns, {}, { ownerReferences: [owner(o)] }));
    const other = await c.create(widget('bg-other', ns));
    const d2 = await c.create(configMap('bg-dep2', ns, {}, { ownerReferences: [owner(o), owner(other)] }));
    await c.delete(refOf(o), { propagationPolicy: 'Background' });
    await waitFor(() => gone(c, d1), 5000, 'dependent collected');
    const survivor = await waitFor(async () => {
      const d = await c.get(refOf(d2));
      return d.metadata.ownerReferences?.length === 1 ? d : undefined;
    }, 5000, 'dangling owner reference removed');
    expect(survivor.metadata.ownerReferences![0].uid).toBe(other.metadata.uid);
  });

  it('foreground deletion: owner waits for blockOwnerDeletion dependents', async () => {
    const o = await c.create(widget('fg-owner', ns));
    const d = await c.create(configMap('fg-dep', ns, {}, { ownerReferences: [owner(o, true)], finalizers: ['example.com/hold'] }));
    await c.delete(refOf(o), { propagationPolicy: 'Foreground' });
    const waiting = await c.get(refOf(o));
    expect(waiting.metadata.finalizers).toContain('foregroundDeletion');
    expect(waiting.metadata.deletionTimestamp).toBeTruthy();
    await waitFor(async () => (await c.get(refOf(d))).metadata.deletionTimestamp, 5000, 'dependent terminating');
    await ts.server.gcIdle();
    expect(await gone(c, o)).toBe(false);
    await c.patch(refOf(d), 'merge', { metadata: { finalizers: null } });
    await waitFor(() => gone(c, o), 5000, 'owner deleted after its dependent');
  });

  it('orphan deletion: dependents stay and lose the owner reference', async () => {
    const o = await c.create(widget('orph-owner', ns));
    const d = await c.create(configMap('orph-dep', ns, {}, { ownerReferences: [owner(o)] }));
    await c.delete(refOf(o), { propagationPolicy: 'Orphan' });
    expect(await gone(c, o)).toBe(true);
    await ts.server.gcIdle();
    const kept = await c.get(refOf(d));
    expect(kept.metadata.ownerReferences).toBeUndefined();
  });
});

describe('namespace deletion', () => {
  it('deletes the contents, then the namespace', async () => {
    const c = ts.clients[0];
    await c.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'doomed' } });
    const cm = await c.create(configMap('inside', 'doomed'));
    await c.delete({ apiVersion: 'v1', kind: 'Namespace', name: 'doomed' });
    await waitFor(() => gone(c, cm), 5000, 'contents deleted');
    await waitFor(() => c.get({ apiVersion: 'v1', kind: 'Namespace', name: 'doomed' }).then(() => false, (e) => e.code === 404), 5000, 'namespace deleted');
  });
});
