// Snapshots of a data dir, as `etcdctl snapshot save` / `etcdutl snapshot restore`: one SQLite file holding the
// database and the files a client needs to keep trusting the server (the bearer token and the serving CA).
import Database from 'better-sqlite3';
import { chmodSync, existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir, PRIVATE_FILE_MODE } from './file-modes';
import { inspectDatabase } from './integrity';

/** Where a server keeps its database and its credential files (the standalone server and the manager differ). */
export interface DataDirLayout {
  database: string;
  /** The directory of `token` and `serving-certs.json` (ApiServerOptions.dataDir). */
  credentialsDir: string;
}

/** The files of a previous run that clients depend on: a restore brings them back, a start-up reads them as evidence. */
export const CREDENTIAL_FILES = ['token', 'serving-certs.json'];

/** The snapshot's own table of credential files; a restored database does not keep it. */
const FILES_TABLE = 'snapshot_files';

export class SnapshotError extends Error {
  override readonly name = 'SnapshotError';
}

export interface SnapshotSummary {
  revision: number;
  objects: number;
  /** Credential files carried in the snapshot (save) or written from it (restore). */
  files: string[];
  /** restore: credential files already in the data dir, kept as they were. */
  kept?: string[];
  /** restore: where the database that was replaced was moved. */
  previous?: string;
}

/**
 * Writes a consistent copy of the database and the credential files to `file` (0600: it holds Secrets and the
 * serving key). Safe while a server runs on the database: VACUUM INTO reads one WAL snapshot in a single read
 * transaction, which never blocks the server's writes nor sees half of one; the copy is compact and has no WAL.
 */
export function saveSnapshot(layout: DataDirLayout, file: string): SnapshotSummary {
  const found = inspectDatabase(layout.database);
  if (found.state === 'damaged')
    throw new SnapshotError(`database ${layout.database} is damaged (integrity_check: ${found.problem}): not saved`);
  if (found.state !== 'data') throw new SnapshotError(`database ${layout.database} is ${found.state}: nothing to save`);
  const tmp = `${file}.partial`;
  rmSync(tmp, { force: true });
  const src = new Database(layout.database, { fileMustExist: true });
  try {
    src.prepare('VACUUM INTO ?').run(tmp);
  } finally {
    src.close();
  }
  chmodSync(tmp, PRIVATE_FILE_MODE);
  const out = new Database(tmp);
  const files: string[] = [];
  let summary: SnapshotSummary;
  try {
    out.exec(`CREATE TABLE ${FILES_TABLE} (name TEXT PRIMARY KEY, content BLOB NOT NULL)`);
    const add = out.prepare(`INSERT INTO ${FILES_TABLE} (name, content) VALUES (?, ?)`);
    for (const name of CREDENTIAL_FILES) {
      const p = join(layout.credentialsDir, name);
      if (!existsSync(p)) continue;
      add.run(name, readFileSync(p));
      files.push(name);
    }
    summary = { ...contents(out), files };
  } finally {
    out.close();
  }
  renameSync(tmp, file);
  return summary;
}

/**
 * Replaces the data dir's database with the snapshot's, offline: refuses while a server holds the database, and a
 * snapshot that fails its integrity check. The database replaced (damaged, or another state) is kept beside it as
 * `<database>.before-restore`; credential files already in the data dir are kept, missing ones come from the snapshot.
 */
export function restoreSnapshot(layout: DataDirLayout, file: string): SnapshotSummary {
  const snap = inspectDatabase(file);
  if (snap.state === 'damaged')
    throw new SnapshotError(`snapshot ${file} is damaged (integrity_check: ${snap.problem})`);
  if (snap.state !== 'data') throw new SnapshotError(`snapshot ${file} is ${snap.state}: it holds no API server data`);
  refuseWhileServed(layout.database);

  const tmp = `${layout.database}.restoring`;
  rmSync(tmp, { force: true });
  ensurePrivateDir(layout.credentialsDir);
  const src = new Database(file, { fileMustExist: true, readonly: true });
  let carried: { name: string; content: Buffer }[] = [];
  try {
    const table = src.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?").get(FILES_TABLE);
    if (table) carried = src.prepare(`SELECT name, content FROM ${FILES_TABLE}`).all() as typeof carried;
    src.prepare('VACUUM INTO ?').run(tmp);
  } finally {
    src.close();
  }
  chmodSync(tmp, PRIVATE_FILE_MODE);
  const out = new Database(tmp);
  let summary: SnapshotSummary;
  try {
    out.exec(`DROP TABLE IF EXISTS ${FILES_TABLE}`);
    out.pragma('journal_mode = WAL');
    summary = { ...contents(out), files: [], kept: [] };
  } finally {
    out.close();
  }

  if (existsSync(layout.database) && statSync(layout.database).size > 0) {
    summary.previous = `${layout.database}.before-restore`;
    for (const suffix of ['', '-wal']) {
      if (existsSync(layout.database + suffix)) renameSync(layout.database + suffix, `${summary.previous}${suffix}`);
    }
  }
  for (const suffix of ['', '-wal', '-shm']) rmSync(layout.database + suffix, { force: true });
  renameSync(tmp, layout.database);
  for (const suffix of ['-wal', '-shm']) rmSync(tmp + suffix, { force: true });

  for (const { name, content } of carried) {
    if (!CREDENTIAL_FILES.includes(name)) continue;
    const p = join(layout.credentialsDir, name);
    if (existsSync(p)) {
      summary.kept!.push(name);
      continue;
    }
    writeFileSync(p, content, { mode: PRIVATE_FILE_MODE });
    summary.files.push(name);
  }
  return summary;
}

/** Throws when another connection (a running server) has the database open; SQLite's locks tell, across processes. */
function refuseWhileServed(path: string): void {
  if (!existsSync(path) || statSync(path).size === 0) return;
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { fileMustExist: true, timeout: 0 });
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
    db.exec('COMMIT');
  } catch (e) {
    // A damaged database may fail in other ways: restoring is how it gets replaced.
    if ((e as { code?: string }).code === 'SQLITE_BUSY')
      throw new SnapshotError(`database ${path} is in use (a server is running on it): stop it before restoring`);
  } finally {
    db?.close();
  }
}

function contents(db: Database.Database): { revision: number; objects: number } {
  const revision = (db.prepare("SELECT v FROM meta WHERE k = 'revision'").get() as { v: number } | undefined)?.v;
  const objects = (db.prepare('SELECT count(*) AS n FROM objects').get() as { n: number }).n;
  return { revision: revision ?? 0, objects };
}
