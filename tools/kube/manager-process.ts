// The manager as its own process, for end-to-end tests against a management cluster: as `npm start` runs it
// (apps/manager/src/main.ts through swc) or, given `main`, a compiled main.js as the image runs it (deploy/build.mjs).
// Ready once its /readyz answers 200, stopped with SIGTERM (SIGKILL after a grace), and killed with the test process if
// that exits first (ManagedProcess's exit hook).
import { execFileSync } from 'node:child_process';
import { get } from 'node:http';
import { join } from 'node:path';
import { freePort, ManagedProcess } from '@capi/kube-control-plane';
import { REPO_ROOT } from './management-cluster';

/** How long the manager may take to answer /readyz (swc compiling on a shared machine, informers syncing). */
export const MANAGER_READY_TIMEOUT_MS = 120_000;

export interface ManagerProcess {
  process: ManagedProcess;
  /** http://127.0.0.1:<port> of its health endpoints. */
  healthUrl: string;
  /** http://127.0.0.1:<port> of its metrics endpoint. */
  metricsUrl: string;
  logPath: string;
  stop(): Promise<void>;
}

function status(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = get(url, { timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}

/**
 * Builds the manager into `out` as the image's build does (deploy/build.mjs; `project`: a tsconfig extending
 * deploy/tsconfig.build.json with more entry files); throws with the build's error output if it fails.
 */
export function buildCompiledManager(out: string, project?: string): void {
  const args = [join(REPO_ROOT, 'deploy/build.mjs'), ...(project ? ['--project', project] : []), out];
  execFileSync(process.execPath, args, { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
}

export interface ManagerProcessOptions {
  readyTimeoutMs?: number;
  /** A compiled main.js (buildCompiledManager's dist/apps/manager/src/main.js) run with plain node; default: swc. */
  main?: string;
}

/** Starts the manager with `flags` (metrics and health on free loopback ports), logging to `logPath`. */
export async function startManagerProcess(
  flags: string[],
  logPath: string,
  { readyTimeoutMs = MANAGER_READY_TIMEOUT_MS, main }: ManagerProcessOptions = {},
): Promise<ManagerProcess> {
  const [health, metrics] = [await freePort(), await freePort()];
  const tsconfig = join(REPO_ROOT, 'tsconfig.json');
  const entry = main ? [main] : ['-r', '@swc-node/register', join(REPO_ROOT, 'apps/manager/src/main.ts')];
  const proc = new ManagedProcess({
    component: 'manager',
    binary: process.execPath,
    args: [...entry, ...flags, `--health-addr=127.0.0.1:${health}`, `--metrics-bind-address=127.0.0.1:${metrics}`],
    logPath,
    cwd: REPO_ROOT,
    // From source: what tools/scripts/start.mjs (npm start) sets. Compiled: the repository's packages, which the image
    // has in /app/node_modules above its dist/. Jest's own variables are left out of the manager's environment.
    env: main
      ? { PATH: process.env.PATH, HOME: process.env.HOME, NODE_PATH: join(REPO_ROOT, 'node_modules') }
      : { PATH: process.env.PATH, HOME: process.env.HOME, TS_NODE_PROJECT: tsconfig, SWC_NODE_PROJECT: tsconfig },
  });
  const healthUrl = `http://127.0.0.1:${health}`;
  await proc.start(async () => (await status(`${healthUrl}/readyz`)) === 200, readyTimeoutMs);
  return { process: proc, healthUrl, metricsUrl: `http://127.0.0.1:${metrics}`, logPath, stop: () => proc.stop() };
}
