import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store, ValueTooLargeError } from './store';

const obj =
  (name: string, extra: Record<string, unknown> = {}) =>
  (rev: number) => ({ metadata: { name, resourceVersion: String(rev) }, spec: { a: { b: [1] } }, ...extra });

describe('Store parsed-object cache', () => {
  afterEach(() => jest.restoreAllMocks());

  it('reads (get, list, dependents) do not JSON.parse a row again once it was written or read', () => {
    const s = new Store({ path: ':memory:' });
    s.put('/configmaps', 'ns', 'a', (rev) => ({
      ...obj('a')(rev),
      metadata: { name: 'a', resourceVersion: String(rev), ownerReferences: [{ uid: 'u1' }] },
    }));
    s.put('/configmaps', 'ns', 'b', obj('b'));
    const parse = jest.spyOn(JSON, 'parse');
    for (let i = 0; i < 3; i++) {
      expect(s.get('/configmaps/ns/a')?.data.spec).toEqual({ a: { b: [1] } });
      expect(s.list('/configmaps', 'ns').map((r) => r.name)).toEqual(['a', 'b']);
      expect(s.dependents('u1').map((r) => r.name)).toEqual(['a']);
    }
    expect(parse).not.toHaveBeenCalled();
    s.close();
  });

  it('cached objects share equal managedFields trees, written or read back from the row', () => {
    const fields = () => ({ 'f:spec': { 'f:a': {} } });
    const withFields = (name: string, time: string) => (rev: number) => ({
      metadata: {
        name,
        resourceVersion: String(rev),
        managedFields: [{ manager: 'm', operation: 'Apply', time, fieldsType: 'FieldsV1', fieldsV1: fields() }],
      },
      spec: { a: 1 },
    });
    const tree = (s: Store, name: string) => s.get(`/configmaps/ns/${name}`)!.data.metadata.managedFields[0].fieldsV1;
    const s = new Store({ path: ':memory:', parsedCacheSize: 2 });
    s.put('/configmaps', 'ns', 'a', withFields('a', '2026-12-04T00:00:00Z'));
    s.put('/configmaps', 'ns', 'b', withFields('b', '2026-12-04T00:00:09Z'));
    expect(tree(s, 'b')).toBe(tree(s, 'a'));
    expect(s.get('/configmaps/ns/b')!.data.metadata.managedFields[0].time).toBe('2026-12-04T00:00:09Z');
    s.put('/configmaps', 'ns', 'c', obj('c')); // evicts a: read back from its row below
    expect(tree(s, 'a')).toBe(tree(s, 'b'));
    expect(tree(s, 'a')).toEqual(fields());
    s.close();
  });

  it('hands out frozen objects: a caller mutating one fails and the next read is unchanged', () => {
    const s = new Store({ path: ':memory:' });
    s.put('/configmaps', 'ns', 'a', obj('a'));
    const got = s.get('/configmaps/ns/a')!;
    expect(() => {
      got.data.spec.a.b.push(2);
    }).toThrow(TypeError);
    expect(() => {
      s.list('/configmaps', 'ns')[0].data.metadata.name = 'x';
    }).toThrow(TypeError);
    expect(s.get('/configmaps/ns/a')?.data).toEqual({
      metadata: { name: 'a', resourceVersion: '2' },
      spec: { a: { b: [1] } },
    });
    s.close();
  });

  it('a refused write leaves the cached object as committed; a delete forgets it', () => {
    const s = new Store({ path: ':memory:', maxValueBytes: 200 });
    s.put('/configmaps', 'ns', 'a', obj('a'));
    expect(() => s.put('/configmaps', 'ns', 'a', obj('a', { big: 'x'.repeat(300) }))).toThrow(ValueTooLargeError);
    expect(s.get('/configmaps/ns/a')?.data.big).toBeUndefined();
    s.delete('/configmaps/ns/a', (rev, last) => ({
      ...last,
      metadata: { ...last.metadata, resourceVersion: String(rev) },
    }));
    expect(s.get('/configmaps/ns/a')).toBeUndefined();
    expect(s.list('/configmaps', 'ns')).toEqual([]);
    s.close();
  });

  it('evicts the least recently written beyond parsedCacheSize and reads it back from the database', () => {
    const dir = mkdtempSync(join(tmpdir(), 'store-cache-'));
    const s = new Store({ path: join(dir, 'db'), parsedCacheSize: 2 });
    for (const n of ['a', 'b', 'c']) s.put('/configmaps', 'ns', n, obj(n));
    const parse = jest.spyOn(JSON, 'parse');
    expect(['c', 'b'].map((n) => s.get(`/configmaps/ns/${n}`)?.data.metadata.name)).toEqual(['c', 'b']);
    expect(parse).not.toHaveBeenCalled();
    expect(s.get('/configmaps/ns/a')?.data.metadata.name).toBe('a');
    expect(parse).toHaveBeenCalledTimes(1);
    expect(s.list('/configmaps', 'ns').map((r) => r.data.metadata.name)).toEqual(['a', 'b', 'c']);
    s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('holds at most parsedCacheChars of JSON text: a fleet beyond it is not kept in the heap a second time', () => {
    const s = new Store({ path: ':memory:', parsedCacheChars: 1000 });
    const names = Array.from({ length: 20 }, (_, i) => `o${i}`);
    for (const n of names) s.put('/configmaps', 'ns', n, obj(n, { pad: 'x'.repeat(150) }));
    const usage = s.parsedCacheUsage();
    expect(usage.chars).toBeLessThanOrEqual(1000);
    expect(usage.objects).toBeGreaterThan(0);
    expect(usage.objects).toBeLessThan(names.length);
    // Evicted objects are read back as committed; a delete releases its share of the budget.
    expect(
      s
        .list('/configmaps', 'ns')
        .map((r) => r.data.metadata.name)
        .sort(),
    ).toEqual([...names].sort());
    expect(s.parsedCacheUsage().chars).toBeLessThanOrEqual(1000);
    for (const n of names)
      s.delete(`/configmaps/ns/${n}`, (rev, last) => ({
        ...last,
        metadata: { ...last.metadata, resourceVersion: String(rev) },
      }));
    expect(s.parsedCacheUsage()).toEqual({ objects: 0, chars: 0 });
    s.close();
  });

  it('keeps the owners index right when a write keeps, changes or drops the owner uids', () => {
    const s = new Store({ path: ':memory:' });
    const owned = (uids: string[], spec: number) => (rev: number) => ({
      metadata: { name: 'a', resourceVersion: String(rev), ownerReferences: uids.map((uid) => ({ uid })) },
      spec,
    });
    const deps = (uid: string) => s.dependents(uid).map((d) => `${d.name}@${d.data.spec}`);
    s.put('/configmaps', 'ns', 'a', owned(['u1'], 1));
    s.put('/configmaps', 'ns', 'a', owned(['u1'], 2));
    expect(deps('u1')).toEqual(['a@2']);
    s.put('/configmaps', 'ns', 'a', owned(['u1', 'u2'], 3));
    expect([deps('u1'), deps('u2')]).toEqual([['a@3'], ['a@3']]);
    s.put('/configmaps', 'ns', 'a', owned(['u2'], 4));
    expect([deps('u1'), deps('u2')]).toEqual([[], ['a@4']]);
    s.put('/configmaps', 'ns', 'a', owned([], 5));
    expect(deps('u2')).toEqual([]);
    s.close();
  });
});
