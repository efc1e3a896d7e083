// Semantic suite (CRUD, patch, apply, selectors, paging), run through raw HTTPS and @kubernetes/client-node.
import type { KubeObject } from '@capi/apimachinery';
import { configMap, widget } from './support/fixtures';
import { startTestServer, type TestServer } from './support/server';
import { HttpError, refOf, type TestClient } from './support/test-client';

let ts: TestServer;
beforeAll(async () => {
  ts = await startTestServer();
});
afterAll(async () => {
  await ts?.stop();
});

const codeOf = async (p: Promise<unknown>): Promise<HttpError> => {
  try {
    await p;
  } catch (e) {
    if (e instanceof HttpError) return e;
    throw e;
  }
  throw new Error('expected the request to fail');
};

describe.each([0, 1])('CRUD semantics via client #%i', (idx) => {
  let c: TestClient;
  const ns = `crud-${idx}`;
  beforeAll(async () => {
    c = ts.clients[idx];
    await c.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  });

  it('create/get/list/update/delete a custom resource with resourceVersions and generation', async () => {
    const created = await c.create(widget('w1', ns, { size: 1 }));
    expect(created.metadata).toMatchObject({ name: 'w1', namespace: ns, generation: 1 });
    expect(created.metadata.uid).toBeTruthy();
    const got = await c.get(refOf(created));
    expect(got.metadata.resourceVersion).toBe(created.metadata.resourceVersion);

    const labelled = await c.update({ ...got, metadata: { ...got.metadata, labels: { a: 'b' } } });
    expect(labelled.metadata.generation).toBe(1);
    expect(Number(labelled.metadata.resourceVersion)).toBeGreaterThan(Number(got.metadata.resourceVersion));
    const resized = await c.update({ ...labelled, spec: { size: 2 } });
    expect(resized.metadata.generation).toBe(2);

    const stale = await codeOf(c.update({ ...got, spec: { size: 5 } }));
    expect(stale.code).toBe(409);
    expect(stale.status.reason).toBe('Conflict');

    const list = await c.list('example.com/v1', 'Widget', ns);
    expect(list.items.map((i) => i.metadata.name)).toEqual(['w1']);
    await c.delete(refOf(created));
    expect((await codeOf(c.get(refOf(created)))).code).toBe(404);
  });

  it('status subresource: main writes keep status, status writes keep spec and generation', async () => {
    const w = await c.create(widget('w-status', ns, { size: 1 }));
    const withStatus = await c.update({ ...w, status: { phase: 'Ready' } }, { subresource: 'status' });
    expect(withStatus.status).toEqual({ phase: 'Ready' });
    expect(withStatus.metadata.generation).toBe(1);
    const mainWrite = await c.update({ ...withStatus, spec: { size: 3 }, status: { phase: 'Hacked' } });
    expect(mainWrite.status).toEqual({ phase: 'Ready' });
    expect(mainWrite.spec).toMatchObject({ size: 3 });
    const statusPatch = await c.patch(
      refOf(w),
      'merge',
      { spec: { size: 9 }, status: { ready: true } },
      { subresource: 'status' },
    );
    expect(statusPatch.spec).toMatchObject({ size: 3 });
    expect(statusPatch.status).toEqual({ phase: 'Ready', ready: true });
    expect(statusPatch.metadata.generation).toBe(2);
  });

  it('merge patch and JSON patch', async () => {
    const w = await c.create(widget('w-patch', ns, { size: 1, tags: ['x'] }));
    const merged = await c.patch(refOf(w), 'merge', {
      spec: { size: 4, tags: null },
      metadata: { labels: { p: 'q' } },
    });
    expect(merged.spec).toMatchObject({ size: 4 });
    expect((merged.spec as any).tags).toBeUndefined();
    expect(merged.metadata.labels).toEqual({ p: 'q' });
    const jp = await c.patch(refOf(w), 'json', [
      { op: 'replace', path: '/spec/size', value: 7 },
      { op: 'add', path: '/metadata/annotations', value: { n: 'v' } },
    ]);
    expect(jp.spec).toMatchObject({ size: 7 });
    expect(jp.metadata.annotations).toEqual({ n: 'v' });
    const failed = await codeOf(c.patch(refOf(w), 'json', [{ op: 'test', path: '/spec/size', value: 1 }]));
    expect(failed.code).toBe(422);
    const missing = await codeOf(c.patch({ ...refOf(w), name: 'nope' }, 'merge', { spec: {} }));
    expect(missing.code).toBe(404);
  });

  it('server-side apply: create, managedFields, conflict between managers, force', async () => {
    const applied = await c.apply(widget('w-ssa', ns, { size: 1, color: 'red', tags: ['x'] }), 'alice');
    const entries = applied.metadata.managedFields ?? [];
    expect(entries).toEqual([
      expect.objectContaining({ manager: 'alice', operation: 'Apply', fieldsType: 'FieldsV1' }),
    ]);
    expect(JSON.stringify(entries[0].fieldsV1)).toContain('f:size');

    const conflict = await codeOf(c.apply(widget('w-ssa', ns, { size: 2 }), 'bob'));
    expect(conflict.code).toBe(409);
    expect(conflict.status.details?.causes).toEqual([
      expect.objectContaining({
        reason: 'FieldManagerConflict',
        field: '.spec.size',
        message: expect.stringContaining('conflict with "alice"'),
      }),
    ]);
    expect(conflict.status.message).toMatch(/conflict/);

    const forced = await c.apply(widget('w-ssa', ns, { size: 2 }), 'bob', { force: true });
    expect(forced.spec).toMatchObject({ size: 2, color: 'red' });
    const bob = forced.metadata.managedFields!.find((m) => m.manager === 'bob')!;
    expect(JSON.stringify(bob.fieldsV1)).toContain('f:size');
    const alice = forced.metadata.managedFields!.find((m) => m.manager === 'alice')!;
    expect(JSON.stringify(alice.fieldsV1)).not.toContain('f:size');

    // alice drops tags and color from her intent: nobody else owns them, so they are removed (color is re-defaulted).
    const dropped = await c.apply(widget('w-ssa', ns, {}), 'alice');
    expect((dropped.spec as any).tags).toBeUndefined();
    expect((dropped.spec as any).color).toBe('blue');
    expect(dropped.spec).toMatchObject({ size: 2 });
  });

  it('server-side apply with dryRun=All returns the defaulted result without persisting (how KCP compares objects)', async () => {
    const preview = await c.apply(widget('w-dry', ns, { size: 1 }), 'kcp', { dryRun: true });
    expect(preview.spec).toEqual({ size: 1, color: 'blue' });
    expect(preview.metadata.managedFields?.[0]).toMatchObject({ manager: 'kcp', operation: 'Apply' });
    expect((await codeOf(c.get(refOf(preview)))).code).toBe(404);
    const live = await c.apply(widget('w-dry', ns, { size: 1 }), 'kcp');
    const changed = await c.apply(widget('w-dry', ns, { size: 5 }), 'kcp', { dryRun: true });
    expect(changed.spec).toMatchObject({ size: 5 });
    const after = await c.get(refOf(live));
    expect(after.spec).toMatchObject({ size: 1 });
    expect(after.metadata.resourceVersion).toBe(live.metadata.resourceVersion);
  });

  it('an Update by another manager takes ownership from the applier', async () => {
    await c.apply(configMap('cm-own', ns, { k: 'v1' }), 'applier');
    const updated = await c.patch(
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'cm-own', namespace: ns },
      'merge',
      { data: { k: 'v2' } },
      { fieldManager: 'editor' },
    );
    const editor = updated.metadata.managedFields!.find((m) => m.manager === 'editor')!;
    expect(editor.operation).toBe('Update');
    const conflict = await codeOf(c.apply(configMap('cm-own', ns, { k: 'v3' }), 'applier'));
    expect(conflict.code).toBe(409);
    expect(conflict.status.details?.causes?.[0]).toMatchObject({ field: '.data.k' });
  });

  it('a write that changes nothing keeps the resourceVersion and sends no watch event', async () => {
    const w = await c.create(widget('w-noop', ns, { size: 1 }));
    const applied = await c.apply(
      { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w-noop', namespace: ns }, spec: { size: 3 } },
      'noop-applier',
      { force: true },
    );
    const events: string[] = [];
    const watch = await c.watch(
      'example.com/v1',
      'Widget',
      ns,
      { resourceVersion: applied.metadata.resourceVersion, fieldSelector: 'metadata.name=w-noop' },
      (e) => events.push(`${e.type} ${e.object.metadata.resourceVersion}`),
    );
    const ref = refOf(w);
    const again = await c.apply(
      { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w-noop', namespace: ns }, spec: { size: 3 } },
      'noop-applier',
    );
    const merged = await c.patch(ref, 'merge', { spec: { size: 3 } }, { fieldManager: 'noop-applier' });
    const updated = await c.update(again);
    for (const o of [again, merged, updated]) {
      expect(o.metadata.resourceVersion).toBe(applied.metadata.resourceVersion);
      expect(o.metadata.managedFields).toEqual(applied.metadata.managedFields);
    }
    const changed = await c.patch(ref, 'merge', { spec: { size: 4 } });
    await new Promise((r) => setTimeout(r, 200));
    watch.stop();
    expect(events).toEqual([`MODIFIED ${changed.metadata.resourceVersion}`]);
  });

  it('list with label and field selectors, limit and continue', async () => {
    for (let i = 0; i < 5; i++)
      await c.create(configMap(`sel-${i}`, ns, {}, { labels: { group: i % 2 ? 'odd' : 'even', idx: String(i) } }));
    const even = await c.list('v1', 'ConfigMap', ns, { labelSelector: 'group=even' });
    expect(even.items.map((i) => i.metadata.name)).toEqual(['sel-0', 'sel-2', 'sel-4']);
    const notIn = await c.list('v1', 'ConfigMap', ns, { labelSelector: 'idx notin (0,1,2),group' });
    expect(notIn.items.map((i) => i.metadata.name)).toEqual(['sel-3', 'sel-4']);
    const byName = await c.list('v1', 'ConfigMap', undefined, {
      fieldSelector: `metadata.name=sel-1,metadata.namespace=${ns}`,
    });
    expect(byName.items.map((i) => i.metadata.name)).toEqual(['sel-1']);

    const names: string[] = [];
    let cont: string | undefined;
    let pages = 0;
    do {
      const page = await c.list('v1', 'ConfigMap', ns, { labelSelector: 'group', limit: 2, continue: cont });
      names.push(...page.items.map((i) => i.metadata.name!));
      cont = page.metadata.continue || undefined;
      pages++;
    } while (cont);
    expect(pages).toBe(3);
    expect(names).toEqual(['sel-0', 'sel-1', 'sel-2', 'sel-3', 'sel-4']);
  });

  it('generateName and dryRun=All', async () => {
    const gen = await c.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { generateName: 'gen-', namespace: ns },
    });
    expect(gen.metadata.name).toMatch(/^gen-[a-z0-9]{5}$/);
    const dry = await c.create(configMap('dry', ns), { dryRun: true });
    expect(dry.metadata.name).toBe('dry');
    expect((await codeOf(c.get(refOf(dry)))).code).toBe(404);
  });

  it('namespaced objects need an existing namespace; duplicates are AlreadyExists', async () => {
    const e = await codeOf(c.create(configMap('x', 'no-such-ns')));
    expect(e.code).toBe(404);
    await c.create(configMap('dup', ns));
    const dup = await codeOf(c.create(configMap('dup', ns)));
    expect(dup.code).toBe(409);
    expect(dup.status.reason).toBe('AlreadyExists');
  });

  it('a write naming another uid (the object was deleted and recreated) is refused: update 409, patch and apply 422', async () => {
    const first = await c.apply(widget('w-uid', ns, { size: 1 }), 'alice');
    await c.delete(refOf(first));
    const second = await c.apply(widget('w-uid', ns, { size: 2 }), 'alice');
    expect(second.metadata.uid).not.toBe(first.metadata.uid);
    const stale = {
      ...widget('w-uid', ns, { size: 3 }),
      metadata: { name: 'w-uid', namespace: ns, uid: first.metadata.uid },
    };
    const put = await codeOf(
      c.update({ ...stale, metadata: { ...stale.metadata, resourceVersion: second.metadata.resourceVersion } }),
    );
    expect(put.code).toBe(409);
    expect(put.status.message).toContain(`Precondition failed: UID in precondition: ${first.metadata.uid}`);
    const patched = await codeOf(
      c.patch(refOf(second), 'merge', { metadata: { uid: first.metadata.uid }, spec: { size: 3 } }),
    );
    expect(patched.code).toBe(422);
    expect(patched.status.details?.causes?.[0]).toMatchObject({ field: 'metadata.uid' });
    const applied = await codeOf(c.apply(stale, 'alice'));
    expect(applied.code).toBe(422);
    expect(applied.status.message).toContain('field is immutable');
    expect((await c.get(refOf(second))).spec).toMatchObject({ size: 2 });
    // The object's own uid is fine.
    expect(
      (await c.apply({ ...stale, metadata: { ...stale.metadata, uid: second.metadata.uid } }, 'alice')).spec,
    ).toMatchObject({ size: 3 });
  });

  it('an apply naming a uid when no object exists is 409 and creates nothing (a stale intent cannot bring a deleted object back)', async () => {
    const first = await c.apply(widget('w-gone', ns, { size: 1 }), 'alice');
    await c.delete(refOf(first));
    const stale = {
      ...widget('w-gone', ns, { size: 2 }),
      metadata: { name: 'w-gone', namespace: ns, uid: first.metadata.uid },
    };
    for (const dryRun of [true, false]) {
      const applied = await codeOf(c.apply(stale, 'alice', { dryRun }));
      expect(applied.code).toBe(409);
      expect(applied.status.reason).toBe('Conflict');
      expect(applied.status.message).toContain(
        `uid mismatch: the provided object specified uid ${first.metadata.uid}, and no existing object was found`,
      );
    }
    expect((await codeOf(c.get(refOf(first)))).code).toBe(404);
    // Without a uid the same apply creates the object, as before.
    expect((await c.apply({ ...stale, metadata: { name: 'w-gone', namespace: ns } }, 'alice')).spec).toMatchObject({
      size: 2,
    });
  });

  it('schema: defaults applied, invalid objects get 422 with field causes', async () => {
    const w = await c.create(widget('w-defaults', ns, { size: 1 }));
    expect(w.spec).toMatchObject({ color: 'blue' });
    const bad = await codeOf(c.create(widget('w-bad', ns, { size: -1 })));
    expect(bad.code).toBe(422);
    expect(bad.status.details?.causes).toEqual([expect.objectContaining({ field: 'spec.size' })]);
    // A type error quotes the value's type (kube-openapi's InvalidType); several errors are one bracketed aggregate.
    const types = await codeOf(c.create(widget('w-types', ns, { size: 1, tags: [1, { x: 1 }] })));
    expect(types.status.message).toBe(
      'Widget.example.com "w-types" is invalid: [spec.tags[0]: Invalid value: "integer": spec.tags[0] in body must be of type string: "integer", ' +
        'spec.tags[1]: Invalid value: "object": spec.tags[1] in body must be of type string: "object"]',
    );
    const badName = await codeOf(c.create(widget('Bad_Name', ns)));
    expect(badName.code).toBe(422);
    expect(badName.status.details?.causes?.[0]).toMatchObject({ field: 'metadata.name' });
  });

  // kube serves custom resources as unstructured maps, which Go's JSON encoder writes with sorted keys.
  it('custom resources come with their keys sorted at every level; arrays keep their order', async () => {
    const w = await c.create({
      kind: 'Widget',
      apiVersion: 'example.com/v1',
      spec: { tags: ['b', 'a'], size: 1 },
      metadata: { namespace: ns, name: 'w-order', labels: { z: '1', a: '2' } },
    } as KubeObject);
    const listed = (await c.list('example.com/v1', 'Widget', ns, { fieldSelector: 'metadata.name=w-order' })).items[0];
    const sortedKeys = (o: object) => expect(Object.keys(o)).toEqual(Object.keys(o).sort());
    for (const o of [w, await c.get(refOf(w)), listed]) {
      expect(Object.keys(o)).toEqual(['apiVersion', 'kind', 'metadata', 'spec']);
      sortedKeys(o.metadata);
      sortedKeys(o.metadata.managedFields![0]);
      expect(Object.keys(o.metadata.labels!)).toEqual(['a', 'z']);
      expect(Object.keys(o.spec as object)).toEqual(['color', 'size', 'tags']);
      expect((o.spec as any).tags).toEqual(['b', 'a']);
    }
  });

  it('cluster-scoped custom resources', async () => {
    const g: KubeObject = {
      apiVersion: 'example.com/v1',
      kind: 'Gadget',
      metadata: { name: `g-${idx}` },
      spec: { anything: { goes: true } },
    };
    const created = await c.create(g);
    expect(created.metadata.namespace).toBeUndefined();
    expect(created.spec).toEqual({ anything: { goes: true } });
  });
});
