// Runs `capi-inplace` as a user does: its own Node process (the TypeScript entry through swc), exit code and output.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

const MAIN = resolve(__dirname, '../../src/main.ts');

export interface CliProcess {
  /** Settles when the process exits. */
  done: Promise<CliRun>;
  /** Resolves once stdout contains `text`. */
  waitForOutput(text: string): Promise<void>;
}

export function startCli(args: string[], env: Record<string, string | undefined> = {}): CliProcess {
  const child = spawn(process.execPath, ['-r', '@swc-node/register', MAIN, ...args], {
    cwd: resolve(__dirname, '../../../..'),
    env: { ...process.env, KUBECONFIG: undefined, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const waiters: { text: string; resolve: () => void }[] = [];
  child.stdout.setEncoding('utf8').on('data', (c: string) => {
    stdout += c;
    for (const w of waiters.splice(0)) (stdout.includes(w.text) ? w.resolve : () => waiters.push(w))();
  });
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const done = new Promise<CliRun>((res, rej) => {
    child.on('error', rej);
    child.on('close', (code) => res({ code, stdout, stderr }));
  });
  return {
    done,
    waitForOutput: (text) =>
      stdout.includes(text) ? Promise.resolve() : new Promise<void>((r) => waiters.push({ text, resolve: r })),
  };
}

export const runCliProcess = (args: string[], env: Record<string, string | undefined> = {}): Promise<CliRun> =>
  startCli(args, env).done;

/** The `error:` lines of a run's stderr. */
export const errorLines = (r: CliRun): string[] => r.stderr.split('\n').filter((l) => l.startsWith('error:'));
