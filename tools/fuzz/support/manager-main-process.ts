// The manager's real entry point (apps/manager/src/main.ts) as a child process, for the cases that check how the
// process itself ends (exit code, its last log record): main() owns the exit handling (lifecycle/exit-reporting).
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from './apiserver-process';
import type { ManagerExit } from './manager-process';

const MAIN = join(REPO_ROOT, 'apps/manager/src/main.ts');

export interface ManagerMainProcess {
  proc: ChildProcess;
  exited: Promise<ManagerExit>;
  exit(): ManagerExit | undefined;
  /** Its log (JSON lines on stderr) so far. */
  log(): string;
  /** The JSON records of its log so far. */
  records(): Record<string, unknown>[];
}

/** Starts main.ts with `flags`; resolves once it logged "manager started", rejects if it exits first. */
export function startManagerMain(flags: string[], timeoutMs = 90_000): Promise<ManagerMainProcess> {
  const proc = spawn(process.execPath, ['-r', '@swc-node/register', MAIN, ...flags], {
    cwd: REPO_ROOT,
    // The gates come from the flags only.
    env: {
      ...process.env,
      SWC_NODE_PROJECT: join(REPO_ROOT, 'tsconfig.json'),
      EXP_IN_PLACE_UPDATES: '',
      EXP_RUNTIME_SDK: '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let exit: ManagerExit | undefined;
  const exited = new Promise<ManagerExit>((r) => proc.once('exit', (code, signal) => r((exit = { code, signal }))));
  let err = '';
  proc.stdout!.resume();
  const m: ManagerMainProcess = {
    proc,
    exited,
    exit: () => exit,
    log: () => err,
    records: () => parseRecords(err),
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`manager not started within ${timeoutMs} ms: ${err.slice(-800)}`));
    }, timeoutMs);
    let started = false;
    proc.stderr!.on('data', (d) => {
      err += d;
      if (!started && err.includes('"msg":"manager started"')) {
        started = true;
        clearTimeout(timer);
        resolve(m);
      }
    });
    proc.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (!started) reject(new Error(`manager exited before it started (${code ?? signal}): ${err.slice(-800)}`));
    });
  });
}

/** The JSON records of a log (other lines skipped). */
export function parseRecords(log: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const line of log.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      out.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // a line cut by the process's end
    }
  }
  return out;
}
