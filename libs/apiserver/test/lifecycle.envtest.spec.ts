// Semantic suite (watch, finalizers, garbage collection), run through raw HTTPS and @kubernetes/client-node.
// The kube target runs kube-apiserver alone, as controller-runtime's envtest: no kube-controller-manager, so no
// garbage collector or namespace controller. What kube-apiserver itself does on a delete (finalizers, deletionTimestamp)
// runs on both targets; what the controllers do afterwards, on the embedded server (which runs its own) only.
import type { KubeObject } from '@capi/apimachinery';
import { configMap, waitFor, widget } from './support/fixtures';
import { compactHistory, embedded, itEmbedded, startTestServer, type TestServer } from './support/server';
import { HttpError, refOf, type Ev, type TestClient } from './support/test-client';

let ts: TestServer;
beforeAll(async () => {
  ts = await startTestServer({ historySize: 50 });
});
afterAll(async () => {
  await ts?.stop();
});

const gone = async (c: TestClient, o: KubeObject) =>
  c.get(refOf(o)).then(
    () => false,
    (e) => e instanceof HttpError && e.code === 404,
  );

const owner = (o: KubeObject, block = false) => ({
  apiVersion: o.apiVersion,
  kind: o.kind,
  name: o.metadata.name!,
  uid: o.metadata.uid!,
  ...(block ? { blockOwnerDeletion: true } : {}),
});

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
    expect(events.map((e) => [e.type, e.object.metadata.name])).toEqual([
      ['ADDED', 'watched'],
      ['MODIFIED', 'watched'],
      ['DELETED', 'watched'],
    ]);
    expect(events[1].object.metadata.resourceVersion).toBe(patched.metadata.resourceVersion);

    // Resume after the MODIFIED event: only DELETED is replayed.
    const resumed: Ev[] = [];
    stops.push(
      await c.watch(
        'example.com/v1',
        'Widget',
        ns,
        { resourceVersion: patched.metadata.resourceVersion, labelSelector: 'watch=me' },
        (e) => resumed.push(e),
      ),
    );
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

  // kube's WatchList defaulting: a watch from no resourceVersion sends the current objects, then (bookmarks allowed) a
  // BOOKMARK annotated as the end of the initial events.
  it('watch without resourceVersion starts with the current objects, then the initial-events-end bookmark', async () => {
    const first = await c.create(configMap('initial', ns));
    await c.create(configMap('initial-2', ns));
    const events: Ev[] = [];
    stops.push(await c.watch('v1', 'ConfigMap', ns, { allowWatchBookmarks: true }, (e) => events.push(e)));
    await waitFor(() => events.some((e) => e.type === 'BOOKMARK'), 5000, 'bookmark');
    expect(events.slice(0, 3).map((e) => [e.type, e.object.metadata.name])).toEqual([
      ['ADDED', 'initial'],
      ['ADDED', 'initial-2'],
      ['BOOKMARK', undefined],
    ]);
    const bm = events[2].object;
    expect(bm.metadata.annotations).toEqual({ 'k8s.io/initial-events-end': 'true' });
    expect(Number(bm.metadata.resourceVersion)).toBeGreaterThan(Number(first.metadata.resourceVersion));
  });

  // Events: kube-apiserver serves their watches from etcd (no watch cache for events by default), so a compacted
  // revision is 410 there as on the embedded server; cached resources keep serving recent history from memory.
  it('watch from a compacted resourceVersion gets 410 Expired', async () => {
    for (let i = 0; i < 60; i++) {
      await c.create({
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: `churn-${i}`, namespace: ns },
        involvedObject: { kind: 'ConfigMap', name: 'x', namespace: ns },
        reason: 'Churn',
      });
    }
    await compactHistory(ts);
    const events: Ev[] = [];
    stops.push(await c.watch('v1', 'Event', ns, { resourceVersion: '1' }, (e) => events.push(e)));
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
    const err = await c
      .patch(refOf(w), 'merge', { metadata: { finalizers: ['example.com/a', 'example.com/z', 'example.com/b'] } })
      .then(
        () => undefined,
        (e) => e,
      );
    expect(err).toBeInstanceOf(HttpError);
    expect(err.code).toBe(422);
    expect(err.status.reason).toBe('Invalid');
    expect(err.status.message).toBe(
      'Widget.example.com "no-new-final" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/b", "example.com/z"}',
    );
    expect((await c.get(refOf(w))).metadata.finalizers).toEqual(['example.com/a']);
    await c.patch(refOf(w), 'merge', { metadata: { finalizers: null } });
    expect(await gone(c, w)).toBe(true);
  });

  itEmbedded('background deletion: dependents are collected after the owner is gone', async () => {
    const o = await c.create(widget('bg-owner', ns));
    const d1 = await c.create(configMap('bg-dep1', ns, {}, { ownerReferences: [owner(o)] }));
    const other = await c.create(widget('bg-other', ns));
    const d2 = await c.create(configMap('bg-dep2', ns, {}, { ownerReferences: [owner(o), owner(other)] }));
    await c.delete(refOf(o), { propagationPolicy: 'Background' });
    await waitFor(() => gone(c, d1), 5000, 'dependent collected');
    const survivor = await waitFor(
      async () => {
        const d = await c.get(refOf(d2));
        return d.metadata.ownerReferences?.length === 1 ? d : undefined;
      },
      5000,
      'dangling owner reference removed',
    );
    expect(survivor.metadata.ownerReferences![0].uid).toBe(other.metadata.uid);
  });

  /** Deletes `o` with `policy` and returns the object as its first watch event after the delete shows it. */
  async function deletedAs(o: KubeObject, policy: 'Foreground' | 'Orphan'): Promise<KubeObject> {
    const events: Ev[] = [];
    const w = await c.watch(
      o.apiVersion,
      o.kind,
      ns,
      { resourceVersion: o.metadata.resourceVersion, fieldSelector: `metadata.name=${o.metadata.name}` },
      (e) => events.push(e),
    );
    stops.push(w);
    await c.delete(refOf(o), { propagationPolicy: policy });
    const ev = await waitFor(() => events[0], 5000, "the delete's watch event");
    w.stop();
    expect(ev.type).toBe('MODIFIED');
    return ev.object;
  }

  // kube's registry store (deletionFinalizersForGarbageCollection in staging/src/k8s.io/apiserver/pkg/registry/
  // generic/registry/store.go) adds the policy's finalizer whether or not the object has dependents; the garbage
  // collector removes it (the embedded server's at once, so the delete's own write is read from a watch).
  it('foreground deletion: the owner is kept, with deletionTimestamp and the foregroundDeletion finalizer', async () => {
    const o = await c.create(widget('fg-mark', ns, { size: 1 }, { finalizers: ['example.com/keep'] }));
    const marked = await deletedAs(o, 'Foreground');
    // markAsDeleting also bumps the generation of objects that track one.
    expect(marked.metadata).toMatchObject({
      name: 'fg-mark',
      finalizers: ['example.com/keep', 'foregroundDeletion'],
      deletionTimestamp: expect.any(String),
      deletionGracePeriodSeconds: 0,
      generation: 2,
    });
  });

  it('orphan deletion: the owner is kept, with deletionTimestamp and the orphan finalizer', async () => {
    const o = await c.create(widget('orph-mark', ns, { size: 1 }, { finalizers: ['example.com/keep'] }));
    await c.create(configMap('orph-mark-dep', ns, {}, { ownerReferences: [owner(o)] }));
    const marked = await deletedAs(o, 'Orphan');
    expect(marked.metadata).toMatchObject({
      name: 'orph-mark',
      finalizers: ['example.com/keep', 'orphan'],
      deletionTimestamp: expect.any(String),
    });
  });

  itEmbedded(
    'foreground deletion: the garbage collector deletes blocking dependents first, then the owner',
    async () => {
      const o = await c.create(widget('fg-owner', ns));
      const d = await c.create(
        configMap('fg-dep', ns, {}, { ownerReferences: [owner(o, true)], finalizers: ['example.com/hold'] }),
      );
      await c.delete(refOf(o), { propagationPolicy: 'Foreground' });
      const waiting = await c.get(refOf(o));
      expect(waiting.metadata.finalizers).toContain('foregroundDeletion');
      expect(waiting.metadata.deletionTimestamp).toBeTruthy();
      await waitFor(async () => (await c.get(refOf(d))).metadata.deletionTimestamp, 5000, 'dependent terminating');
      await embedded(ts).gcIdle();
      expect(await gone(c, o)).toBe(false);
      await c.patch(refOf(d), 'merge', { metadata: { finalizers: null } });
      await waitFor(() => gone(c, o), 5000, 'owner deleted after its dependent');
    },
  );

  itEmbedded(
    'orphan deletion: the garbage collector removes the owner reference from dependents, then the owner',
    async () => {
      const o = await c.create(widget('orph-owner', ns));
      const d = await c.create(configMap('orph-dep', ns, {}, { ownerReferences: [owner(o)] }));
      await c.delete(refOf(o), { propagationPolicy: 'Orphan' });
      await waitFor(() => gone(c, o), 5000, 'owner deleted');
      await embedded(ts).gcIdle();
      const kept = await c.get(refOf(d));
      expect(kept.metadata.ownerReferences).toBeUndefined();
    },
  );
});

describe('namespace deletion', () => {
  it('marks the namespace Terminating (its spec finalizer kept) and refuses new content with 403', async () => {
    const c = ts.clients[0];
    await c.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'closing' } });
    await c.create(configMap('inside', 'closing', {}, { finalizers: ['example.com/hold'] }));
    const answer = await c.delete({ apiVersion: 'v1', kind: 'Namespace', name: 'closing' });
    expect(answer).toMatchObject({
      kind: 'Namespace',
      metadata: {
        name: 'closing',
        deletionTimestamp: expect.any(String),
        labels: { 'kubernetes.io/metadata.name': 'closing' },
      },
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Terminating' },
    });
    expect(answer.metadata.finalizers).toBeUndefined();
    const refused = await c.create(configMap('late', 'closing')).then(
      () => undefined,
      (e) => e,
    );
    expect(refused).toBeInstanceOf(HttpError);
    expect(refused.code).toBe(403);
    expect(refused.status).toMatchObject({
      reason: 'Forbidden',
      message:
        'configmaps "late" is forbidden: unable to create new content in namespace closing because it is being terminated',
    });
  });

  itEmbedded('the namespace controller deletes the contents, then the namespace', async () => {
    const c = ts.clients[0];
    await c.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'doomed' } });
    const cm = await c.create(configMap('inside', 'doomed'));
    await c.delete({ apiVersion: 'v1', kind: 'Namespace', name: 'doomed' });
    await waitFor(() => gone(c, cm), 5000, 'contents deleted');
    await waitFor(
      () =>
        c.get({ apiVersion: 'v1', kind: 'Namespace', name: 'doomed' }).then(
          () => false,
          (e) => e.code === 404,
        ),
      5000,
      'namespace deleted',
    );
  });
});
