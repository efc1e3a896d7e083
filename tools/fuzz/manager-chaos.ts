// Chaos loop for the manager: kill -9 the embedded manager (API server on SQLite in its data dir, controllers,
// in-memory provider, reference updater) at random moments during an in-place rollout, restart it on the same data
// directory each time, then check convergence, lost/replaced Machines and UpdateMachine completions per Machine.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '@capi/controller-runtime';
import { versionPatch } from '../demo/objects';
import { benchSpec, createBenchCluster, mdMachines, patchMachineDeployment, waitForMachineDeployment } from '../bench/rollout';
import { REPO_ROOT } from './support/apiserver-process';
import { Rng } from './support/rng';

const CHILD = join(__dirname, 'support/manager-child.ts');

export interface ManagerChaosOptions {
  seed: number;
  kills: number;
  replicas?: number;
  /** Random delay before each kill, in ms. */
  killAfterMs?: [number, number];
  convergeTimeoutMs?: number;
  log?: (line: string) => void;
  /** Keep each manager run's log here (diagnosis). */
  logDir?: string;
}

export interface ManagerChaosResult {
  converged: boolean;
  convergeError?: string;
  killDelaysMs: number[];
  /** Machines present before the change and gone after (replaced or lost). */
  missing: string[];
  /** Machines that appeared during the in-place change. */
  created: string[];
  /** Machine -> UpdateMachine completions for the one change, when more than one. */
  completedTwice: [string, number][];
  seconds: number;
}

interface ManagerProcess { proc: ChildProcess; client: KubeClient; exited: Promise<void> }

/** "<namespace>/<machine>: UpdateMachine hook completed" log lines per Machine. */
export function countCompletions(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of text.matchAll(/([\w.-]+\/[\w.-]+): UpdateMachine hook completed/g)) out.set(m[1], (out.get(m[1]) ?? 0) + 1);
  return out;
}

export async function runManagerChaos(opts: ManagerChaosOptions): Promise<ManagerChaosResult> {
  const log = opts.log ?? (() => undefined);
  const dir = mkdtempSync(join(tmpdir(), 'manager-chaos-'));
  const logs: string[] = [];
  let current: ManagerProcess | undefined;

  const start = (): Promise<ManagerProcess> => {
    const proc = spawn(process.execPath, ['-r', '@swc-node/register', CHILD, dir], {
      cwd: REPO_ROOT, env: { ...process.env, SWC_NODE_PROJECT: join(REPO_ROOT, 'tsconfig.json') }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<void>((r) => proc.once('exit', () => r()));
    const index = logs.push('') - 1;
    let err = '';
    return new Promise((resolve, reject) => {
      let ready = false;
      proc.stderr!.on('data', (d) => (err += d));
      proc.stdout!.on('data', (d) => {
        logs[index] += d;
        const line = ready ? undefined : logs[index].split('\n').find((l) => l.startsWith('{"ready":true'));
        if (!line) return;
        ready = true;
        const kc = new KubeConfig();
        kc.loadFromString(readFileSync(JSON.parse(line).kubeconfig, 'utf8'));
        current = { proc, client: new KubeClient(kc), exited };
        resolve(current);
      });
      proc.once('exit', (code, signal) => reject(new Error(`manager exited before it was ready (${code ?? signal}): ${err.slice(-800)}`)));
    });
  };
  const kill9 = async () => {
    const m = current;
    current = undefined;
    if (!m) return;
    m.client.close();
    m.proc.kill('SIGKILL');
    await m.exited;
  };

  const rng = new Rng(opts.seed);
  const [minKill, maxKill] = opts.killAfterMs ?? [500, 4000];
  const s = benchSpec(opts.replicas ?? 3, 'chaos');
  const client = () => current!.client;
  try {
    await start();
    await createBenchCluster(client(), s, 1);
    await waitForMachineDeployment(client, s, s.version, 180_000, log, 'create');
    const before = (await mdMachines(client(), s)).map((m) => m.metadata.name!);
    const completionsBefore = countCompletions(logs.join('\n'));
    const t0 = Date.now();
    await patchMachineDeployment(client(), s, versionPatch.machineDeployment(s.upgradeVersion));
    const killDelaysMs: number[] = [];
    for (let k = 1; k <= opts.kills; k++) {
      const after = rng.int(minKill, maxKill);
      killDelaysMs.push(after);
      await new Promise((r) => setTimeout(r, after));
      log(`kill ${k} after ${after} ms`);
      await kill9();
      await start();
    }
    let convergeError: string | undefined;
    try {
      await waitForMachineDeployment(client, s, s.upgradeVersion, opts.convergeTimeoutMs ?? 240_000, log, 'in-place rollout');
    } catch (e) {
      convergeError = (e as Error).message;
    }
    const seconds = (Date.now() - t0) / 1000;
    const after = (await mdMachines(client(), s)).map((m) => m.metadata.name!);
    const completions = countCompletions(logs.join('\n'));
    return {
      converged: convergeError === undefined,
      convergeError,
      killDelaysMs,
      missing: before.filter((n) => !after.includes(n)),
      created: after.filter((n) => !before.includes(n)),
      completedTwice: [...completions].map(([m, n]): [string, number] => [m, n - (completionsBefore.get(m) ?? 0)]).filter(([, n]) => n > 1),
      seconds,
    };
  } finally {
    await kill9();
    if (opts.logDir) logs.forEach((l, i) => writeFileSync(join(opts.logDir!, `manager-${i}.log`), l));
    rmSync(dir, { recursive: true, force: true });
  }
}
