// One manager per data directory, as etcd locks its data dir: a second one on the same directory would rewrite the
// kubeconfig to its own port and open the SQLite database a running server writes (its writes then fail with
// "UNIQUE constraint failed: events.rev"). The lock is a file holding the holder's PID, created exclusively.
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export const LOCK_FILE = 'manager.lock';

export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `data dir ${dataDir} is in use by the manager with PID ${pid}: stop it first, or run this one with another ` +
        '--data-dir (and other --metrics-bind-address / --health-addr)',
    );
    this.name = 'DataDirInUseError';
  }
}

/** Whether a process with this PID runs (signal 0 checks without sending anything; EPERM: it runs as another user). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes `<dataDir>/manager.lock` for this process; returns its release. A lock whose PID no longer runs (a manager
 * killed with SIGKILL) is taken over. Throws DataDirInUseError while a running process holds it.
 */
export function lockDataDir(dataDir: string): () => void {
  const path = join(dataDir, LOCK_FILE);
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return () => {
        try {
          if (Number(readFileSync(path, 'utf8')) === process.pid) unlinkSync(path);
        } catch {
          // already gone
        }
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw e;
    }
    let holder = NaN;
    try {
      holder = Number(readFileSync(path, 'utf8').trim());
    } catch {
      // removed in between: try again
    }
    if (Number.isInteger(holder) && holder > 0 && running(holder)) throw new DataDirInUseError(dataDir, holder);
    try {
      unlinkSync(path); // stale: its process is gone
    } catch {
      // removed in between
    }
  }
}
