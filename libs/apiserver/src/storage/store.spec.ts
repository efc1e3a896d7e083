import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompactedError, Store, ValueTooLargeError, type StoreEvent } from './store';

const obj =
  (name: string, extra: Record<string, unknown> = {}) =>
  (rev: number) => ({ metadata: { name, resourceVersion: String(rev), ...extra } });

describe('Store', () => {
  it('stamps every write with the next global revision and lists in key order', () => {
    const s = new Store({ path: ':memory:' });
    const a = s.put('/configmaps', 'ns', 'b', obj('b'));
    const b = s.put('g/widgets', 'ns', 'a', obj('a'));
    const c = s.put('/configmaps', 'ns', 'a', obj('a'));
    expect([a.rev, b.rev, c.rev]).toEqual([2, 3, 4]);
    expect(s.currentRevision()).toBe(4);
    expect(s.list('/configmaps', 'ns').map((r) => r.name)).toEqual(['a', 'b']);
    expect(s.list('/configmaps', 'other')).toEqual([]);
    s.close();
  });

  it('replays history after a revision, then streams live events; too-old revisions are compacted', () => {
    const s = new Store({ path: ':memory:', historySize: 3 });
    s.put('/configmaps', 'ns', 'a', obj('a'));
    const second = s.put('/configmaps', 'ns', 'b', obj('b'));
    s.put('/configmaps', 'ns', 'a', obj('a', { labels: { x: 'y' } }));
    const seen: StoreEvent[] = [];
    const stop = s.watch('/configmaps', second.rev, (e) => seen.push(e));
    s.delete('/configmaps/ns/b', (rev, last) => ({
      ...last,
      metadata: { ...last.metadata, resourceVersion: String(rev) },
    }));
    stop();
    s.put('/configmaps', 'ns', 'c', obj('c'));
    expect(seen.map((e) => [e.type, e.data.metadata.name])).toEqual([
      ['MODIFIED', 'a'],
      ['DELETED', 'b'],
    ]);
    for (let i = 0; i < 5; i++) s.put('/configmaps', 'ns', `n${i}`, obj(`n${i}`));
    expect(() => s.watch('/configmaps', 1, () => {})).toThrow(CompactedError);
    s.close();
  });

  it('refuses a value over maxValueBytes: nothing written, no revision, no event', () => {
    const s = new Store({ path: ':memory:', maxValueBytes: 1000 });
    const events: StoreEvent[] = [];
    s.onAny((e) => events.push(e));
    s.put('/configmaps', 'ns', 'a', obj('a'));
    const rev = s.currentRevision();
    expect(() => s.put('/configmaps', 'ns', 'a', obj('a', { big: 'x'.repeat(1000) }))).toThrow(ValueTooLargeError);
    expect(s.currentRevision()).toBe(rev);
    expect(s.get('/configmaps/ns/a')!.data.metadata.big).toBeUndefined();
    expect(events).toHaveLength(1);
    s.close();
  });

  it('skips a write its unchanged() check calls a no-op: same revision, no event, the stored object returned', () => {
    const s = new Store({ path: ':memory:' });
    const first = s.put('/configmaps', 'ns', 'a', obj('a', { labels: { k: 'v' } }));
    const events: StoreEvent[] = [];
    s.watch('/configmaps', first.rev, (e) => events.push(e));
    const sameLabels = (p: Record<string, any>, n: Record<string, any>) =>
      JSON.stringify(p.metadata.labels) === JSON.stringify(n.metadata.labels);
    const kept = s.put('/configmaps', 'ns', 'a', obj('a', { labels: { k: 'v' } }), sameLabels);
    expect(kept).toMatchObject({ rev: first.rev, data: first.data });
    expect(s.currentRevision()).toBe(first.rev);
    const changed = s.put('/configmaps', 'ns', 'a', obj('a', { labels: { k: 'w' } }), sameLabels);
    expect(changed.rev).toBe(first.rev + 1);
    expect(events.map((e) => [e.type, e.rev])).toEqual([['MODIFIED', first.rev + 1]]);
    s.close();
  });

  it('indexes owner references', () => {
    const s = new Store({ path: ':memory:' });
    s.put('/configmaps', 'ns', 'dep', obj('dep', { ownerReferences: [{ uid: 'owner-1' }] }));
    expect(s.dependents('owner-1').map((d) => d.name)).toEqual(['dep']);
    s.put('/configmaps', 'ns', 'dep', obj('dep'));
    expect(s.dependents('owner-1')).toEqual([]);
    s.close();
  });

  it('keeps objects and the revision counter in the file across reopen', () => {
    const dir = mkdtempSync(join(tmpdir(), 'store-'));
    try {
      const path = join(dir, 'db.sqlite');
      const s1 = new Store({ path });
      s1.put('/configmaps', 'ns', 'a', obj('a'));
      s1.close();
      const s2 = new Store({ path });
      expect(s2.get('/configmaps/ns/a')?.data.metadata.name).toBe('a');
      expect(s2.put('/configmaps', 'ns', 'b', obj('b')).rev).toBe(3);
      s2.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stores large objects deflated and reads them back exactly; rows written as text before still read', () => {
    const dir = mkdtempSync(join(tmpdir(), 'store-'));
    const path = join(dir, 'db.sqlite');
    // A Machine-sized object: repeated keys compress well.
    const conditions = Array.from({ length: 20 }, (_, i) => ({
      type: `Condition${i}`,
      status: 'True',
      reason: 'Ready',
      lastTransitionTime: '2026-12-04T00:00:00Z',
    }));
    const big = (rev: number) => ({
      metadata: { name: 'big', resourceVersion: String(rev), annotations: { note: 'é✓ unicode' } },
      status: { conditions },
    });
    try {
      const s1 = new Store({ path });
      const written = s1.put('/configmaps', 'ns', 'big', big);
      s1.put('/configmaps', 'ns', 'small', obj('small'));
      s1.close();

      const db = new Database(path);
      const rows = db.prepare('SELECT key, data FROM objects ORDER BY key').all() as { key: string; data: unknown }[];
      const bigRow = rows.find((r) => r.key === '/configmaps/ns/big')!.data;
      expect(Buffer.isBuffer(bigRow)).toBe(true);
      expect((bigRow as Buffer).length).toBeLessThan(JSON.stringify(written.data).length / 4);
      expect(typeof rows.find((r) => r.key === '/configmaps/ns/small')!.data).toBe('string');
      const eventRow = (db.prepare('SELECT data FROM events WHERE rev = ?').get(written.rev) as { data: unknown }).data;
      expect(Buffer.isBuffer(eventRow)).toBe(true);
      // A row as stores before compression wrote it: plain JSON text.
      db.prepare('UPDATE objects SET data = ? WHERE key = ?').run(
        JSON.stringify({ metadata: { name: 'small', resourceVersion: '3', labels: { old: 'text' } } }),
        '/configmaps/ns/small',
      );
      db.close();

      const s2 = new Store({ path });
      expect(s2.get('/configmaps/ns/big')?.data).toEqual(written.data);
      expect(s2.list('/configmaps', 'ns').map((r) => r.data.metadata.labels ?? r.data.metadata.annotations)).toEqual([
        { note: 'é✓ unicode' },
        { old: 'text' },
      ]);
      const replayed: StoreEvent[] = [];
      s2.watch('/configmaps', 1, (e) => replayed.push(e))();
      expect(replayed[0].data).toEqual(written.data);
      s2.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
