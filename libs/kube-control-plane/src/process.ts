// A child process of the kube target (etcd, kube-apiserver): output to a log file, a readiness wait that fails fast
// when the process dies, and a stop that escalates to SIGKILL. controller-runtime's envtest does the same in
// pkg/internal/testing/process.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** Milliseconds a stopping process gets between SIGTERM and SIGKILL. */
export const STOP_GRACE_MS = 10_000;
/** How often a starting process's readiness check is repeated. */
const READY_POLL_INTERVAL_MS = 100;

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

/** Children must not outlive a test process that exits without stopping them (a failed beforeAll, Ctrl-C). */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of running) child.kill('SIGKILL');
  });
}

/** A free TCP port on 127.0.0.1 (free when asked; another process may take it before it is bound). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** How many times a component is started on new free ports when the one it was given was taken meanwhile. */
export const PORT_ATTEMPTS = 3;

/**
 * Runs `startOnce` again (up to PORT_ATTEMPTS times) while it fails because a component could not bind its port. The
 * ports are picked free but released before the component binds them, so another process on the machine (a parallel
 * test suite) can take one in between; the component then exits with "address already in use". `cleanup` runs
 * before each new attempt.
 */
export async function startRetryingTakenPorts<T>(startOnce: () => Promise<T>, cleanup: () => void): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce();
    } catch (e) {
      if (attempt >= PORT_ATTEMPTS || !portWasTaken(e)) throw e;
      cleanup();
    }
  }
}

const portWasTaken = (e: unknown): boolean =>
  String((e as Error).message).includes('address already in use') ||
  (e instanceof ComponentError && tailOf(e.logPath, 20).includes('address already in use'));

/** The last `n` non-empty lines of a log file ('' when it cannot be read). */
export function tailOf(path: string, n = 5): string {
  try {
    return readFileSync(path, 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .slice(-n)
      .join('\n');
  } catch {
    return '';
  }
}

export class ComponentError extends Error {
  constructor(
    readonly component: string,
    readonly logPath: string,
    what: string,
  ) {
    const tail = tailOf(logPath, 3);
    super(`${component} ${what}; log: ${logPath}${tail ? `\n${tail}` : ''}`);
  }
}

export interface ProcessSpec {
  /** Names the component in errors ("etcd", "kube-apiserver"). */
  component: string;
  binary: string;
  args: string[];
  logPath: string;
  /** Environment (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** Working directory (default: this process's). */
  cwd?: string;
}

export class ManagedProcess {
  private child?: ChildProcess;
  private exited?: Promise<number | null>;
  private exitCode?: number | null;

  constructor(readonly spec: ProcessSpec) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get alive(): boolean {
    return !!this.child && this.exitCode === undefined;
  }

  /** Starts the process; `ready` is polled until it resolves true, the process exits, or `timeoutMs` passes. */
  async start(ready: () => Promise<boolean>, timeoutMs: number): Promise<void> {
    const { component, binary, args, logPath } = this.spec;
    const fd = openSync(logPath, 'a');
    let spawnError: Error | undefined;
    try {
      this.exitCode = undefined;
      const child = spawn(binary, args, { stdio: ['ignore', fd, fd], env: this.spec.env, cwd: this.spec.cwd });
      this.child = child;
      running.add(child);
      installExitHook();
      this.exited = new Promise((resolve) => {
        child.once('error', (e) => {
          spawnError = e;
          this.exitCode = null;
          running.delete(child);
          resolve(null);
        });
        child.once('exit', (code, signal) => {
          this.exitCode = code ?? (signal ? null : 0);
          running.delete(child);
          resolve(this.exitCode);
        });
      });
    } finally {
      closeSync(fd);
    }
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (spawnError)
        throw new ComponentError(component, logPath, `could not be started (${binary}): ${spawnError.message}`);
      if (this.exitCode !== undefined)
        throw new ComponentError(component, logPath, `exited (code ${this.exitCode}) before it became ready`);
      if (await ready().catch(() => false)) return;
      if (Date.now() > deadline) {
        await this.stop();
        throw new ComponentError(component, logPath, `did not become ready within ${Math.round(timeoutMs / 1000)} s`);
      }
      await new Promise((r) => setTimeout(r, READY_POLL_INTERVAL_MS));
    }
  }

  /** SIGTERM, then SIGKILL after STOP_GRACE_MS; resolves when the process is gone. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || this.exitCode !== undefined) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    await this.exited;
    clearTimeout(timer);
  }

  /** kill -9, as a crash: for fault-injection. Resolves when the process is gone. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || this.exitCode !== undefined) return;
    child.kill('SIGKILL');
    await this.exited;
  }
}
