// Spawns the real entry point the way `npm start` does (node -r @swc-node/register apps/manager/src/main.ts), for
// process-level tests of flags, start-up and exits.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export const repoRoot = join(__dirname, '../../../..');

export interface RunOptions {
  /** Extra modules preloaded with -r (e.g. support/crash-preload.ts). */
  preload?: string[];
  env?: NodeJS.ProcessEnv;
}

export function runManager(args: string[], opts: RunOptions = {}): ChildProcess {
  const preload = ['@swc-node/register', ...(opts.preload ?? [])].flatMap((m) => ['-r', m]);
  return spawn(process.execPath, [...preload, join(repoRoot, 'apps/manager/src/main.ts'), ...args], {
    cwd: repoRoot,
    // KUBERNETES_SERVICE_HOST cleared: a CI job running in a pod must still get the embedded default.
    env: {
      ...process.env,
      SWC_NODE_PROJECT: join(repoRoot, 'tsconfig.json'),
      EXP_IN_PLACE_UPDATES: '',
      EXP_RUNTIME_SDK: '',
      KUBERNETES_SERVICE_HOST: '',
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function finish(child: ChildProcess): Promise<Finished> {
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c) => (stdout += c));
  child.stderr!.on('data', (c) => (stderr += c));
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr })));
}

/** The JSON log records on stderr. */
export function logRecords(stderr: string): Record<string, unknown>[] {
  return stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** Resolves with the first stderr JSON log record whose msg matches. */
export function waitForLog(child: ChildProcess, msg: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    let buf = '';
    const onData = (c: Buffer) => {
      buf += c.toString();
      for (const line of buf.split('\n')) {
        if (!line.startsWith('{')) continue;
        try {
          const rec = JSON.parse(line);
          if (rec.msg === msg) {
            child.stderr!.off('data', onData);
            return resolve(rec);
          }
        } catch {
          // partial line; wait for more
        }
      }
    };
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`manager exited (${code}) before logging "${msg}": ${buf}`)));
  });
}
