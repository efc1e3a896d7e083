// A compaction that fails on a damaged history page is reported; the write that triggered it, and everything after,
// still works.
import Database from 'better-sqlite3';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store, type StoreEvent } from './store';

const obj = (name: string, i: number) => (rev: number) => ({
  metadata: { name, resourceVersion: String(rev) },
  // ~400 characters, below the compression threshold: a history page holds about ten events.
  data: { i: String(i), pad: `${i}-`.repeat(200).slice(0, 400) },
});

/** Overwrites the first (oldest revisions) leaf page of the events table with garbage. */
function damageOldestHistoryPage(path: string): void {
  const db = new Database(path);
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  const leaves = db
    .prepare("SELECT pageno FROM dbstat WHERE name = 'events' AND pagetype = 'leaf' ORDER BY path")
    .all() as { pageno: number }[];
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  expect(leaves.length).toBeGreaterThan(10);
  const fd = openSync(path, 'r+');
  writeSync(fd, Buffer.alloc(pageSize, 0xa5), 0, pageSize, (leaves[0].pageno - 1) * pageSize);
  closeSync(fd);
}

describe('Store compaction', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'store-compaction-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('logs a failing compaction and keeps serving writes, reads and watches', () => {
    const path = join(dir, 'state.db');
    const first = new Store({ path, historySize: 200 });
    for (let i = 0; i < 215; i++) first.put('/configmaps', 'ns', `cm-${i % 20}`, obj(`cm-${i % 20}`, i));
    first.close(); // 216 revisions: compaction is due after 220
    damageOldestHistoryPage(path);

    const errors: unknown[] = [];
    const s = new Store({ path, historySize: 200, onCompactionError: (e) => errors.push(e) });
    const live: StoreEvent[] = [];
    const stop = s.watch('/configmaps', s.currentRevision(), (e) => live.push(e));
    const written = [];
    for (let i = 215; i < 230; i++) written.push(s.put('/configmaps', 'ns', `new-${i}`, obj(`new-${i}`, i)));
    stop();
    expect(errors.length).toBe(1); // retried only after another tenth of historySize
    expect(String(errors[0])).toMatch(/malformed|corrupt/i);
    expect(written.map((w) => w.rev)).toEqual(Array.from({ length: 15 }, (_, k) => 217 + k));
    expect(s.get('/configmaps/ns/new-229')?.data.data.i).toBe('229');
    expect(s.get('/configmaps/ns/cm-3')?.data.data.i).toBe('203');
    expect(s.list('/configmaps', 'ns').length).toBe(35);
    expect(live.map((e) => e.data.metadata.name)).toEqual(written.map((w) => w.name));
    // Nothing was compacted: resuming from before the failed compaction is still allowed.
    expect(s.oldestResumableRevision()).toBe(0);
    const deleted = s.delete('/configmaps/ns/new-215', (rev, last) => last);
    expect(deleted?.type).toBe('DELETED');
    s.close();
  });
});
