// The data dir holds Secrets (in the SQLite files), the bearer token and the serving key: only the user running the
// server may read it, as kube-apiserver's etcd data dir (etcd creates it 0700 and its files 0600).
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** SQLite's companion files of a database (they hold recent writes): private like the database. */
const SQLITE_COMPANIONS = ['-wal', '-shm', '-journal'];

/**
 * Creates `dir` 0700, or narrows an existing one that others can read; returns a message saying what was narrowed
 * (for a warning), undefined when nothing had to change.
 */
export function ensurePrivateDir(dir: string): string | undefined {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const mode = statSync(dir).mode & 0o777;
  if ((mode & 0o077) === 0) return undefined;
  chmodSync(dir, PRIVATE_DIR_MODE);
  return `data dir ${dir} was readable by others (mode ${mode.toString(8)}): changed to 700`;
}

/**
 * Makes a SQLite database file and its companions 0600: creates the database file so (SQLite gives its companions the
 * database's mode when it creates them) and narrows existing ones. Call before opening and again after.
 */
export function ensurePrivateDatabaseFiles(path: string): void {
  if (!existsSync(path)) closeSync(openSync(path, 'a', PRIVATE_FILE_MODE));
  for (const p of [path, ...SQLITE_COMPANIONS.map((s) => path + s)]) {
    if (existsSync(p) && (statSync(p).mode & 0o077) !== 0) chmodSync(p, PRIVATE_FILE_MODE);
  }
}
