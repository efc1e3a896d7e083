// Runs the embedded manager (support/manager-child.ts) as a child process: its own process tree, so a crash of the
// API server or a controller shows as the child's exit (code or signal) instead of taking the test runner down.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '@capi/controller-runtime';
import { REPO_ROOT } from './apiserver-process';

const CHILD = join(__dirname, 'manager-child.ts');

export interface ManagerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ManagerProcess {
  proc: ChildProcess;
  client: KubeClient;
  kubeconfig: KubeConfig;
  /** Resolves with the exit code or signal once the process has exited. */
  exited: Promise<ManagerExit>;
  /** The exit, once it happened. */
  exit(): ManagerExit | undefined;
  /** stderr so far. */
  stderr(): string;
}

/** Starts the manager on `dataDir`; resolves once it printed {"ready":true}. `onStdout` gets its JSON log lines. */
export function startManagerProcess(
  dataDir: string,
  onStdout: (chunk: string) => void = () => undefined,
  flags: string[] = [],
): Promise<ManagerProcess> {
  const proc = spawn(process.execPath, ['-r', '@swc-node/register', CHILD, dataDir, ...flags], {
    cwd: REPO_ROOT,
    env: { ...process.env, SWC_NODE_PROJECT: join(REPO_ROOT, 'tsconfig.json') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let exit: ManagerExit | undefined;
  const exited = new Promise<ManagerExit>((r) => proc.once('exit', (code, signal) => r((exit = { code, signal }))));
  let err = '';
  let out = '';
  return new Promise((resolve, reject) => {
    let ready = false;
    proc.stderr!.on('data', (d) => (err += d));
    proc.stdout!.on('data', (d) => {
      onStdout(String(d));
      if (ready) return;
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('{"ready":true'));
      if (!line) return;
      ready = true;
      out = '';
      const kc = new KubeConfig();
      kc.loadFromString(readFileSync(JSON.parse(line).kubeconfig, 'utf8'));
      resolve({ proc, client: new KubeClient(kc), kubeconfig: kc, exited, exit: () => exit, stderr: () => err });
    });
    proc.once('exit', (code, signal) =>
      reject(new Error(`manager exited before it was ready (${code ?? signal}): ${err.slice(-800)}`)),
    );
  });
}
