// The manager as `npm start` runs it (apps/manager/src/main.ts under swc), in the embedded default with its data in a
// temporary folder and the live view on a free loopback port.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(__dirname, '../..');

export interface ManagerProcess {
  child: ChildProcess;
  /** The live view's URL, e.g. http://127.0.0.1:41234/. */
  url: string;
  kubeconfigPath: string;
  /** Everything the manager wrote to stderr (JSON logs), for a failing test's message. */
  logs(): string;
  stop(): Promise<void>;
}

export async function startManagerWithLiveView(timeoutMs: number): Promise<ManagerProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'capi-live-view-e2e-'));
  const child = spawn(
    process.execPath,
    [
      '-r',
      '@swc-node/register',
      join(root, 'apps/manager/src/main.ts'),
      `--data-dir=${dataDir}`,
      '--metrics-bind-address=0',
      '--health-addr=0',
      '--live-view-address=127.0.0.1:0',
    ],
    {
      cwd: root,
      // KUBERNETES_SERVICE_HOST cleared: in a CI pod the manager must still take the embedded default.
      env: {
        ...process.env,
        SWC_NODE_PROJECT: join(root, 'tsconfig.json'),
        EXP_IN_PLACE_UPDATES: '',
        EXP_RUNTIME_SDK: '',
        KUBERNETES_SERVICE_HOST: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (c) => (stderr += c));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the manager did not start within ${timeoutMs} ms`)), timeoutMs);
      child.stdout!.on('data', (c) => {
        stdout += c;
        const m = /^Live view: (http:\/\/\S+)$/m.exec(stdout);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the manager exited (${code}) before serving the live view:\n${stdout}${stderr}`));
      });
    });
    return { child, url, kubeconfigPath: join(dataDir, 'kubeconfig'), logs: () => stderr, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
