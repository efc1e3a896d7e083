// Chaos loop for the manager: kill -9 the embedded manager (API server on SQLite in its data dir, controllers,
// in-memory provider, reference updater) at random moments while in-place rollouts are in flight, restart it on the
// same data directory each time. In-place changes (version bumps) follow one another until every kill has landed
// during one; for each change: convergence, lost/replaced Machines, UpdateMachine completions per Machine.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { versionPatch } from '../demo/objects';
import {
  benchSpec,
  createBenchCluster,
  machineDeploymentProblems,
  mdMachines,
  patchMachineDeployment,
  waitForMachineDeployment,
} from '../bench/rollout-cluster';
import {
  badExtensionConfigProblems,
  runBadExtensionConfigPhase,
  type BadExtensionConfigResult,
} from './manager-chaos-extension';
import { startManagerProcess, type ManagerProcess } from './support/manager-process';
import { Rng } from './support/rng';

export interface ManagerChaosOptions {
  seed: number;
  /** kill -9 cycles, each at a random moment while an in-place rollout is in flight. */
  kills: number;
  replicas?: number;
  /** Random delay before each kill, counted from the change or the previous restart, in ms (default 0.2-8 s: a restart
   * plus one Machine's in-place update takes about 5 s, so kills land in every phase and some changes complete). */
  killAfterMs?: [number, number];
  /** Convergence timeout of each change. */
  convergeTimeoutMs?: number;
  log?: (line: string) => void;
  /** Keep each manager run's log here (diagnosis). */
  logDir?: string;
  /** After the kills: bad ExtensionConfigs during one more change, then deleted (manager-chaos-extension.ts). */
  badExtensionConfig?: boolean;
}

/** One in-place change (a version bump) and what the kills during it did. */
export interface ChangeResult {
  version: string;
  kills: number;
  converged: boolean;
  convergeError?: string;
  /** Machines present before the change and gone after (replaced or lost). */
  missing: string[];
  /** Machines that appeared during the change. */
  created: string[];
  /** Machine -> UpdateMachine completions for this change, when more than one. */
  completedTwice: [string, number][];
  seconds: number;
}

export interface ManagerChaosResult {
  changes: ChangeResult[];
  killDelaysMs: number[];
  /** Seconds from each restart to the manager being ready. */
  restartSeconds: number[];
  badExtensionConfig?: BadExtensionConfigResult;
  seconds: number;
}

/** True when every change converged with every Machine kept and updated once. */
export const chaosPassed = (r: ManagerChaosResult): boolean =>
  r.changes.length > 0 &&
  r.changes.every(changePassed) &&
  (r.badExtensionConfig === undefined || badExtensionConfigProblems(r.badExtensionConfig).length === 0);

/** The change converged with every Machine kept and updated once. */
export const changePassed = (c: ChangeResult): boolean =>
  c.converged && !c.missing.length && !c.created.length && !c.completedTwice.length;

/** The n-th in-place change of the chaos run: patch versions after the demo's initial version. */
export function chaosVersion(initial: string, n: number): string {
  const m = /^v(\d+)\.(\d+)\.(\d+)$/.exec(initial);
  if (!m) throw new Error(`unexpected version ${initial}`);
  return `v${m[1]}.${m[2]}.${Number(m[3]) + n}`;
}

/** "<namespace>/<machine>: UpdateMachine hook completed" log lines per Machine. */
export function countCompletions(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of text.matchAll(/([\w.-]+\/[\w.-]+): UpdateMachine hook completed/g))
    out.set(m[1], (out.get(m[1]) ?? 0) + 1);
  return out;
}

export async function runManagerChaos(opts: ManagerChaosOptions): Promise<ManagerChaosResult> {
  const log = opts.log ?? (() => undefined);
  const dir = mkdtempSync(join(tmpdir(), 'manager-chaos-'));
  const logs: string[] = [];
  let current: ManagerProcess | undefined;

  const start = async (): Promise<ManagerProcess> => {
    const index = logs.push('') - 1;
    current = await startManagerProcess(dir, (d) => (logs[index] += d));
    return current;
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
  const [minKill, maxKill] = opts.killAfterMs ?? [200, 8000];
  const s = benchSpec(opts.replicas ?? 3, 'chaos');
  const client = () => current!.client;
  const completions = () => countCompletions(logs.join('\n'));
  const restartSeconds: number[] = [];
  const killDelaysMs: number[] = [];
  const changes: ChangeResult[] = [];
  const t0 = Date.now();
  try {
    await start();
    await createBenchCluster(client(), s, 1);
    await waitForMachineDeployment(client, s, s.version, 180_000, log, 'create');
    let kills = 0;
    /** One in-place change: `during` runs right after the patch; then kills (up to `maxKills` in all) while it runs. */
    const runChange = async (
      n: number,
      maxKills: number,
      during?: () => Promise<void>,
      [minAfter, maxAfter] = [minKill, maxKill],
    ): Promise<ChangeResult> => {
      const version = chaosVersion(s.version, n);
      const before = (await mdMachines(client(), s)).map((m) => m.metadata.name!);
      const completionsBefore = completions();
      const changeStart = Date.now();
      await patchMachineDeployment(client(), s, versionPatch.machineDeployment(version));
      await during?.();
      let killsInChange = 0;
      while (kills < maxKills) {
        const after = rng.int(minAfter, maxAfter);
        await new Promise((r) => setTimeout(r, after));
        if ((await machineDeploymentProblems(client(), s, version)).length === 0) break; // rolled out before this kill
        killDelaysMs.push(after);
        kills++;
        killsInChange++;
        log(`change ${n} (${version}): kill ${kills} after ${after} ms`);
        await kill9();
        const restart = Date.now();
        await start();
        restartSeconds.push((Date.now() - restart) / 1000);
      }
      let convergeError: string | undefined;
      try {
        await waitForMachineDeployment(
          client,
          s,
          version,
          opts.convergeTimeoutMs ?? 120_000,
          log,
          `change ${n} (${version})`,
        );
      } catch (e) {
        convergeError = (e as Error).message;
      }
      const afterNames = (await mdMachines(client(), s)).map((m) => m.metadata.name!);
      const counted = completions();
      return {
        version,
        kills: killsInChange,
        converged: convergeError === undefined,
        convergeError,
        missing: before.filter((m) => !afterNames.includes(m)),
        created: afterNames.filter((m) => !before.includes(m)),
        completedTwice: [...counted]
          .map(([m, c]): [string, number] => [m, c - (completionsBefore.get(m) ?? 0)])
          .filter(([, c]) => c > 1),
        seconds: (Date.now() - changeStart) / 1000,
      };
    };
    // Changes follow one another until every kill has hit a rollout in flight (bounded, should rollouts outrun the kills).
    let n = 1;
    for (; kills < opts.kills && n <= opts.kills * 3; n++) {
      const change = await runChange(n, opts.kills);
      changes.push(change);
      if (change.convergeError) break; // later changes would only pile up on this one
    }
    let badExtensionConfig: BadExtensionConfigResult | undefined;
    if (opts.badExtensionConfig && changes.every((c) => c.converged)) {
      badExtensionConfig = await runBadExtensionConfigPhase({
        client,
        alive: () => current !== undefined && current.exit() === undefined,
        // Under the bad ExtensionConfig no kill: a restart would wait for its discovery (see the phase).
        change: (during) => runChange(n++, kills, during),
        // Deleted: one more kill, and the restarted manager's warm-up must find nothing left broken.
        // Early in the rollout, so that it lands before the change completes.
        changeWithKill: () => runChange(n++, kills + 1, undefined, [200, 1000]),
        managerLog: () => logs[logs.length - 1],
        log,
      });
    }
    return { changes, killDelaysMs, restartSeconds, badExtensionConfig, seconds: (Date.now() - t0) / 1000 };
  } finally {
    await kill9();
    if (opts.logDir) logs.forEach((l, i) => writeFileSync(join(opts.logDir!, `manager-${i}.log`), l));
    rmSync(dir, { recursive: true, force: true });
  }
}
