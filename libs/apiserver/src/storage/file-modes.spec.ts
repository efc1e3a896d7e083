import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensurePrivateDir } from './file-modes';
import { Store } from './store';

const modeOf = (p: string) => (statSync(p).mode & 0o777).toString(8);

describe('data dir and database file modes', () => {
  let root: string;
  let umask: number;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'file-modes-'));
    // The common default: new files 0644 and folders 0755 unless the code asks for less.
    umask = process.umask(0o022);
  });
  afterEach(() => {
    process.umask(umask);
    rmSync(root, { recursive: true, force: true });
  });

  it('creates a new data dir 0700', () => {
    const dir = join(root, 'new', 'data');
    expect(ensurePrivateDir(dir)).toBeUndefined();
    expect(modeOf(dir)).toBe('700');
  });

  it('narrows an existing data dir others can read to 0700 and says so', () => {
    const dir = join(root, 'wide');
    mkdirSync(dir, { mode: 0o755 });
    expect(ensurePrivateDir(dir)).toBe(`data dir ${dir} was readable by others (mode 755): changed to 700`);
    expect(modeOf(dir)).toBe('700');
    expect(ensurePrivateDir(dir)).toBeUndefined();
  });

  it('a new database and its WAL companions are 0600', () => {
    const path = join(root, 'state.db');
    const s = new Store({ path });
    s.put('/secrets', 'ns', 'a', (rev) => ({ metadata: { name: 'a', resourceVersion: String(rev) } }));
    for (const p of [path, `${path}-wal`, `${path}-shm`]) {
      expect(existsSync(p)).toBe(true);
      expect([p, modeOf(p)]).toEqual([p, '600']);
    }
    s.close();
  });

  it('an existing database others can read (an earlier version wrote it 0644) is narrowed to 0600', () => {
    const path = join(root, 'state.db');
    new Store({ path }).close();
    chmodSync(path, 0o644);
    writeFileSync(`${path}-wal`, '');
    chmodSync(`${path}-wal`, 0o644);
    const s = new Store({ path });
    expect(modeOf(path)).toBe('600');
    expect(modeOf(`${path}-wal`)).toBe('600');
    s.close();
  });
});
