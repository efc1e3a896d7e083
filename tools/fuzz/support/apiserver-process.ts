// Runs the standalone API server (libs/apiserver/src/main.ts) as a child process we can kill -9.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import YAML from 'yaml';
import type { Endpoint } from './http';

export const REPO_ROOT = resolve(__dirname, '../../..');
const MAIN = join(REPO_ROOT, 'libs/apiserver/src/main.ts');

export interface ServerProcess {
  proc: ChildProcess;
  endpoint: Endpoint;
  /** The kubeconfig file it wrote (its admin token). */
  kubeconfigPath: string;
  /** Resolves once the process has exited. */
  exited: Promise<void>;
  kill9(): Promise<void>;
  /** SIGTERM (the server stops cleanly); resolves once it has exited. */
  stop(): Promise<void>;
}

/**
 * Starts the server on `dataDir` (SQLite file state.db there, or `--memory` in `extraArgs`) and resolves when it
 * printed its kubeconfig path.
 */
export function startServerProcess(
  dataDir: string,
  timeoutMs = 60_000,
  extraArgs: string[] = [],
): Promise<ServerProcess> {
  const proc = spawn(process.execPath, ['-r', '@swc-node/register', MAIN, '--data-dir', dataDir, ...extraArgs], {
    cwd: REPO_ROOT,
    env: { ...process.env, SWC_NODE_PROJECT: join(REPO_ROOT, 'tsconfig.json') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  const kill9 = async () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    await exited;
  };
  return new Promise((resolvePromise, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      void kill9();
      reject(new Error(`API server did not start in ${timeoutMs} ms: ${err.slice(-500)}`));
    }, timeoutMs);
    proc.stderr!.on('data', (d) => (err = (err + String(d)).slice(-4000)));
    proc.stdout!.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (!line) return;
      clearTimeout(timer);
      const kubeconfigPath = JSON.parse(line).kubeconfig as string;
      const kc = YAML.parse(readFileSync(kubeconfigPath, 'utf8'));
      const endpoint = {
        url: kc.clusters[0].cluster.server,
        caData: kc.clusters[0].cluster['certificate-authority-data'],
        token: kc.users[0].user.token,
      };
      const stop = async () => {
        if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
        await exited;
      };
      resolvePromise({ proc, endpoint, kubeconfigPath, exited, kill9, stop });
    });
    proc.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`API server exited before it was ready (${code ?? signal}): ${err.slice(-500)}`));
    });
  });
}
