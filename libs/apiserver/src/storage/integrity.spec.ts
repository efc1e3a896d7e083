import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkDatabase, inspectDatabase, StorageDamagedError } from './integrity';
import { Store } from './store';

describe('start-up database checks', () => {
  let dir: string;
  let db: string;
  let token: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'integrity-'));
    db = join(dir, 'state.db');
    token = join(dir, 'token');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const withObjects = (n: number) => {
    const s = new Store({ path: db });
    for (let i = 0; i < n; i++)
      s.put('/configmaps', 'ns', `cm-${i}`, (rev) => ({ metadata: { name: `cm-${i}` }, rev }));
    s.close();
  };

  it('tells a missing, 0-byte, empty and used database apart', () => {
    expect(inspectDatabase(db)).toEqual({ state: 'missing' });
    writeFileSync(db, '');
    expect(inspectDatabase(db)).toEqual({ state: 'zero' });
    new Store({ path: db }).close(); // tables, no revision
    expect(inspectDatabase(db)).toEqual({ state: 'empty' });
    withObjects(1);
    expect(inspectDatabase(db)).toEqual({ state: 'data' });
  });

  it('reports a file that is not a database, or whose pages are overwritten, as damaged', () => {
    withObjects(200);
    const bytes = readFileSync(db);
    bytes.fill(0x33, 8192, 8192 + 4096); // the third page
    writeFileSync(db, bytes);
    expect(inspectDatabase(db)).toMatchObject({ state: 'damaged', problem: expect.any(String) });
    writeFileSync(db, 'not a database at all, just text');
    expect(inspectDatabase(db)).toMatchObject({ state: 'damaged', problem: 'file is not a database' });
  });

  it('passes a fresh data dir and a used one; refuses an emptied one a previous run left credentials in', () => {
    expect(() => checkDatabase(db, [token], 'restore it')).not.toThrow();
    withObjects(1);
    writeFileSync(token, 'secret');
    expect(() => checkDatabase(db, [token], 'restore it')).not.toThrow();
    rmSync(db);
    expect(() => checkDatabase(db, [token], 'restore it')).toThrow(
      new StorageDamagedError(
        db,
        `is missing but ${token} show a previous run`,
        `restore it, or move ${token} away to start empty with new credentials`,
      ),
    );
    writeFileSync(db, '');
    expect(() => checkDatabase(db, [token], 'restore it')).toThrow(`database ${db} is empty (0 bytes) but ${token}`);
    rmSync(token);
    expect(() => checkDatabase(db, [token], 'restore it')).not.toThrow(); // no previous run: starts empty
  });

  it('refuses a damaged database even without credentials', () => {
    writeFileSync(db, 'x'.repeat(4096));
    expect(() => checkDatabase(db, [token], 'restore it')).toThrow(
      `database ${db} is damaged (integrity_check: file is not a database); restore it, or move ${db} away to start empty`,
    );
  });
});
