// Start-up checks of a file database: the API server refuses to serve a damaged database, or an empty one where the
// data dir shows a previous run, instead of answering from it (etcd likewise refuses a data dir whose db fails its
// checks: server/storage/backend, and `etcdutl snapshot restore` is how an operator recovers).
import Database from 'better-sqlite3';
import { existsSync, statSync } from 'node:fs';

/** The API server cannot start on its database; the message names the file and how to recover. */
export class StorageDamagedError extends Error {
  override readonly name = 'StorageDamagedError';
  constructor(
    readonly path: string,
    readonly problem: string,
    recovery: string,
  ) {
    super(`database ${path} ${problem}; ${recovery}`);
  }
}

/**
 * What the database at `path` is: absent (missing or 0 bytes), damaged (SQLite's `PRAGMA integrity_check`, its WAL
 * included, with the first problem reported), empty (no committed revision: the Store writes one with its first
 * object), or holding data. integrity_check rather than quick_check: on a 10,000-object database (8 MB) both take
 * 50-80 ms, and integrity_check also finds indexes that no longer match their table. Neither sees bytes changed inside
 * a row's value (SQLite pages carry no checksum): such a row fails when it is read.
 */
export function inspectDatabase(
  path: string,
): { state: 'missing' | 'zero' | 'empty' | 'data' } | { state: 'damaged'; problem: string } {
  if (!existsSync(path)) return { state: 'missing' };
  if (statSync(path).size === 0) return { state: 'zero' };
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { fileMustExist: true });
    const rows = db.pragma('integrity_check') as { integrity_check: string }[];
    const problems = rows.map((r) => r.integrity_check).filter((r) => r !== 'ok');
    if (problems.length > 0)
      return {
        state: 'damaged',
        problem: problems.length === 1 ? problems[0] : `${problems[0]} (and ${problems.length - 1} more problems)`,
      };
    const meta = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'meta'").get();
    return { state: meta && db.prepare("SELECT v FROM meta WHERE k = 'revision'").get() ? 'data' : 'empty' };
  } catch (e) {
    // A file that is not a database at all (its header overwritten) fails already on open or on the first read.
    return { state: 'damaged', problem: (e as Error).message };
  } finally {
    db?.close();
  }
}

/**
 * Refuses a database that is damaged, or empty or missing while `previousRun` names files a previous run left (the
 * token, the CA): starting empty would serve a cluster with no objects under the old credentials. `recovery` says how
 * to recover (the snapshot restore command). A fresh data dir (no such files, no database) passes.
 */
export function checkDatabase(path: string, previousRun: string[], recovery: string): void {
  const found = inspectDatabase(path);
  const left = previousRun.filter((p) => existsSync(p));
  const moved = found.state === 'missing' ? left : [path, ...left];
  const startEmpty = `or move ${moved.join(' and ')} away to start empty${left.length ? ' with new credentials' : ''}`;
  if (found.state === 'damaged')
    throw new StorageDamagedError(path, `is damaged (integrity_check: ${found.problem})`, `${recovery}, ${startEmpty}`);
  if (found.state === 'data' || left.length === 0) return;
  const what = found.state === 'zero' ? 'empty (0 bytes)' : found.state;
  throw new StorageDamagedError(
    path,
    `is ${what} but ${left.join(' and ')} show a previous run`,
    `${recovery}, ${startEmpty}`,
  );
}
