// BENCH_TARGET=both: the rollout bench on the embedded API server, then on etcd + kube-apiserver, each in a fresh
// process of its own (so neither's figures include the other's), each printing its own tables; then both targets'
// figures side by side.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PhaseResult, RolloutArgs } from './rollout';
import { BENCH_TARGETS, type BenchTarget } from './rollout-targets';
import { renderTable, type Cell } from './table';

export type SizeRuns = { replicas: number; results: PhaseResult[] }[];

/**
 * One row per phase, both targets side by side: seconds, writes per Machine, the manager's CPU seconds and peak RSS
 * (its own process: BENCH_MANAGER=process), and the management API server's: the standalone server's process on
 * embedded, kube-apiserver + etcd on kube.
 */
export function comparisonTable(
  replicas: number,
  embedded: PhaseResult[],
  kube: PhaseResult[],
): { header: string[]; rows: Cell[][] } {
  const header = [
    'phase',
    'seconds embedded',
    'seconds kube',
    'writes/Machine embedded',
    'writes/Machine kube',
    'manager CPU s embedded',
    'manager CPU s kube',
    'manager peak RSS MiB embedded',
    'manager peak RSS MiB kube',
    'CPU s API server embedded',
    'CPU s kube-apiserver + etcd',
    'peak RSS MiB API server embedded',
    'kube-apiserver',
    'etcd',
  ];
  const cpu = (r: PhaseResult | undefined, ...names: string[]): Cell =>
    r && names.every((k) => r.cpuSeconds.others[k] !== undefined)
      ? names.reduce((n, k) => n + r.cpuSeconds.others[k], 0)
      : '-';
  const rss = (r: PhaseResult | undefined, name: string): Cell => r?.othersRssMiB[name] ?? '-';
  const rows = embedded.map((e) => {
    const k = kube.find((x) => x.phase === e.phase);
    return [
      e.phase,
      e.seconds,
      k?.seconds ?? '-',
      e.writes / replicas,
      k ? k.writes / replicas : '-',
      cpu(e, 'manager'),
      cpu(k, 'manager'),
      rss(e, 'manager'),
      rss(k, 'manager'),
      cpu(e, 'API server'),
      cpu(k, 'kube-apiserver', 'etcd'),
      rss(e, 'API server'),
      rss(k, 'kube-apiserver'),
      rss(k, 'etcd'),
    ];
  });
  return { header, rows };
}

function runTarget(target: BenchTarget, rawArgs: string[], json: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['-r', '@swc-node/register', join(__dirname, 'main.ts'), 'rollout', ...rawArgs],
      {
        stdio: 'inherit',
        env: { ...process.env, BENCH_TARGET: target, BENCH_JSON: json },
      },
    );
    const kill = () => child.kill('SIGKILL');
    process.once('exit', kill);
    child.on('error', reject);
    child.on('exit', (code) => {
      process.off('exit', kill);
      resolve(code);
    });
  });
}

export async function runRolloutComparison(rawArgs: string[], args: RolloutArgs): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'capi-bench-both-'));
  try {
    const runs: Partial<Record<BenchTarget, SizeRuns>> = {};
    for (const target of BENCH_TARGETS) {
      process.stderr.write(`rollout: ${target} target, in a process of its own\n`);
      const json = join(dir, `${target}.json`);
      const code = await runTarget(target, rawArgs, json);
      if (code !== 0) throw new Error(`the ${target} run exited with code ${code}`);
      runs[target] = JSON.parse(readFileSync(json, 'utf8')) as SizeRuns;
    }
    const flags = args.managerFlags.length ? `, manager flags: ${args.managerFlags.join(' ')}` : '';
    for (const e of runs.embedded!) {
      const k = runs.kube!.find((r) => r.replicas === e.replicas);
      const { header, rows } = comparisonTable(e.replicas, e.results, k?.results ?? []);
      process.stdout.write(
        `\nembedded vs kube: MachineDeployment of ${e.replicas} Machines, maxUnavailable ${args.maxUnavailableOf(e.replicas)}${flags}; writes counted at the management API server (kube: apiserver_request_total)\n${renderTable(header, rows)}`,
      );
    }
    return 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
