// Benchmark 3: rollout of an N-Machine MachineDeployment through the whole manager (Machine / MachineSet /
// MachineDeployment / KCP controllers, in-memory provider, zero-latency reference updater), in place (version change)
// and by replacement (new infrastructure template), side by side: time to converge, writes per Machine at the
// management API server, process RSS. BENCH_TARGET picks that API server: embedded (default), kube (etcd +
// kube-apiserver) or both (each in its own process, then the figures side by side; rollout-compare.ts).
import type { Registry } from 'prom-client';
import { CACHE, METRICS_REGISTRY, type Client, type InformerCache } from '@capi/controller-runtime';
import type { WorkloadServer } from '@capi/inmemory';
import { writeFileSync } from 'node:fs';
import { infraTemplatePatch, machineTemplateObject, names, versionPatch, type DemoSpec } from '../demo/objects';
import {
  startHeapProfile,
  startPhaseProfile,
  startRssSampler,
  type NamedStorage,
  type OtherProcesses,
} from './process-stats';
import { reconcileDelta, reconcileRows, reconcileSnapshot, type ReconcileCounts } from './reconciles';
import { runRolloutComparison } from './rollout-compare';
import {
  benchSpec,
  createBenchCluster,
  mdMachines,
  patchMachineDeployment,
  waitForMachineDeployment,
} from './rollout-cluster';
import {
  benchTargetFromEnv,
  startTarget,
  type BenchTarget,
  type PhaseWrites,
  type RolloutTarget,
} from './rollout-targets';
import { scalingTable } from './scaling';
import { renderTable, type Cell } from './table';

export interface PhaseResult extends PhaseWrites {
  phase: string;
  seconds: number;
  /** writes minus ExtensionConfig status and Events */
  machineWrites: number;
  kept: number;
  replaced: number;
  rssMiB: number;
  /** peak RSS of the other processes of the target (workload servers, kube-apiserver, etcd), by name */
  othersRssMiB: Record<string, number>;
  /** CPU seconds of the bench's process and of the others during the phase */
  cpuSeconds: { self: number; others: Record<string, number> };
  /** per controller, from its metrics */
  reconciles: ReconcileCounts;
}

/** Reads by verb and resource, most first (BENCH_READS). */
const topReads = (c: Record<string, number>) =>
  Object.entries(c)
    .filter(([k]) => /^(get|list|watch) /.test(k))
    .sort((a, b) => b[1] - a[1])
    .slice(0, 10)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');

export class RolloutBench {
  private readonly s: DemoSpec;
  heap?: { snapshot(name: string): Promise<void> };

  constructor(
    private readonly client: Client,
    /** The management API server's write counter (the target's). */
    private readonly target: Pick<RolloutTarget, 'resetWrites' | 'countWrites' | 'managementReads'>,
    private readonly registry: Registry,
    replicas: number,
    private readonly maxUnavailable: number,
    private readonly timeoutMs: number,
    private readonly log: (l: string) => void,
    /** The in-memory workload clusters' API servers (Node reads are counted there, not at the management server). */
    private readonly workloadServers: () => WorkloadServer[] = () => [],
    /** Processes besides this one whose peak RSS is reported. */
    private readonly others: OtherProcesses = () => ({}),
  ) {
    this.s = benchSpec(replicas);
  }

  private mdMachines = () => mdMachines(this.client, this.s);
  private patchMd = (body: unknown) => patchMachineDeployment(this.client, this.s, body);
  private settle = (phase: string, version: string) =>
    waitForMachineDeployment(() => this.client, this.s, version, this.timeoutMs, this.log, phase);
  private create = () => createBenchCluster(this.client, this.s, this.maxUnavailable);

  /** Applies `change`, waits for convergence and measures it. */
  async phase(phase: string, version: string, change: () => Promise<unknown>): Promise<PhaseResult> {
    const before = new Set((await this.mdMachines()).map((m) => m.metadata.uid));
    await this.target.resetWrites();
    await Promise.all(this.workloadServers().map((w) => w.resetRequests()));
    const reconcilesBefore = await reconcileSnapshot(this.registry);
    const profile = await startPhaseProfile(phase);
    const rss = startRssSampler(this.others);
    const t0 = Date.now();
    await change();
    await this.settle(phase, version);
    const seconds = (Date.now() - t0) / 1000;
    await profile?.stop();
    const cpuSeconds = rss.cpuSeconds();
    rss.stop();
    await this.heap?.snapshot(`${this.s.workerReplicas}-${phase}`);
    const counted = await this.target.countWrites();
    const reconciles = reconcileDelta(reconcilesBefore, await reconcileSnapshot(this.registry));
    const after = await this.mdMachines();
    const kept = after.filter((m) => before.has(m.metadata.uid)).length;
    const unrelated = Object.entries(counted.byResource)
      .filter(([k]) => / runtime\.cluster\.x-k8s\.io\/|events/.test(k))
      .reduce((n, [, v]) => n + v, 0);
    if (process.env.BENCH_READS) {
      const reads = this.target.managementReads();
      this.log(`${phase} reads: ${reads ? topReads(reads) : 'not counted on this target'}`);
      const workload: Record<string, number> = {};
      for (const c of await Promise.all(this.workloadServers().map((w) => w.countRequests())))
        for (const [k, v] of Object.entries(c.byVerbResource)) workload[k] = (workload[k] ?? 0) + v;
      this.log(`${phase} workload cluster reads: ${topReads(workload)}`);
    }
    // Logged at once too: a long run (10,000) shows each phase's figures before the tables at the end.
    const rssMiB = rss.peakMiB();
    const othersRssMiB = rss.othersPeakMiB();
    const others = Object.entries(othersRssMiB)
      .map(
        ([k, v]) =>
          `; ${k}: peak RSS ${v.toFixed(0)} MiB${cpuSeconds.others[k] === undefined ? '' : `, CPU ${cpuSeconds.others[k].toFixed(1)} s`}`,
      )
      .join('');
    this.log(
      `${phase}: ${seconds.toFixed(1)} s, ${(counted.writes / this.s.workerReplicas).toFixed(2)} writes/Machine, peak RSS ${rssMiB.toFixed(0)} MiB (${rss.peakBreakdown()}), CPU ${cpuSeconds.self.toFixed(1)} s${others}`,
    );
    return {
      ...counted,
      phase,
      seconds,
      machineWrites: counted.writes - unrelated,
      kept,
      replaced: before.size - kept,
      rssMiB,
      othersRssMiB,
      cpuSeconds,
      reconciles,
    };
  }

  /** The phases in order; `phases` (BENCH_PHASES) runs only the first ones, e.g. 2 for create + in place at 10,000. */
  async run(phases = 3): Promise<PhaseResult[]> {
    const s = this.s;
    const n = names(s);
    const results: PhaseResult[] = [];
    const created = await this.phase('create', s.version, () => this.create());
    results.push(created);
    this.log(`created ${s.workerReplicas} Machines in ${created.seconds.toFixed(1)} s`);
    if (phases < 2) return results;
    const inPlace = await this.phase('in-place (version)', s.upgradeVersion, () =>
      this.patchMd(versionPatch.machineDeployment(s.upgradeVersion)),
    );
    results.push(inPlace);
    this.log(`in-place rollout converged in ${inPlace.seconds.toFixed(1)} s`);
    if (phases < 3) return results;
    results.push(
      await this.phase('replacement (infra template)', s.upgradeVersion, async () => {
        await this.client.create(machineTemplateObject(s, n.mdInfraTemplate(2), s.newImage));
        await this.patchMd(infraTemplatePatch.machineDeployment(n.mdInfraTemplate(2)));
      }),
    );
    return results;
  }
}

/**
 * One row per (resource, verb, field manager) seen in any phase, most first: per phase, writes per Machine and how
 * many of those changed nothing at the server (no-op) or were refused (failed: conflicts mostly).
 */
export function writeBreakdown(
  results: Pick<PhaseResult, 'byManager' | 'noopByManager' | 'failedByManager'>[],
  replicas: number,
): Cell[][] {
  const keys = [...new Set(results.flatMap((r) => Object.keys(r.byManager)))];
  const total = (k: string) => results.reduce((n, r) => n + (r.byManager[k] ?? 0), 0);
  return keys
    .sort((a, b) => total(b) - total(a))
    .map((k) => {
      const [verb, resource, manager] = k.split(' ');
      return [
        resource,
        verb,
        manager,
        ...results.flatMap((r) => [
          (r.byManager[k] ?? 0) / replicas,
          (r.noopByManager[k] ?? 0) / replicas,
          (r.failedByManager[k] ?? 0) / replicas,
        ]),
      ];
    });
}

/** One row per (resource, verb), most first: per phase, writes per Machine (kube-apiserver has no field-manager label). */
export function writeBreakdownByResource(results: Pick<PhaseResult, 'byResource'>[], replicas: number): Cell[][] {
  const keys = [...new Set(results.flatMap((r) => Object.keys(r.byResource)))];
  const total = (k: string) => results.reduce((n, r) => n + (r.byResource[k] ?? 0), 0);
  return keys
    .sort((a, b) => total(b) - total(a))
    .map((k) => {
      const [verb, resource] = k.split(' ');
      return [resource, verb, ...results.map((r) => (r.byResource[k] ?? 0) / replicas)];
    });
}

export interface RolloutArgs {
  sizes: number[];
  maxUnavailableOf(replicas: number): number;
  maxUnavailableLabel: string;
  timeoutMs: number;
  managerFlags: string[];
}

/** `[replicas=1000 | size,size,...] [maxUnavailable=10%] [timeoutSeconds=1800] [--manager-flag=value...]` */
export function parseRolloutArgs(allArgs: string[]): RolloutArgs {
  // Arguments starting with -- are manager flags, e.g. --kube-api-qps=100 (both targets run without a limit by default).
  const managerFlags = allArgs.filter((a) => a.startsWith('--'));
  const args = allArgs.filter((a) => !a.startsWith('--'));
  // Several sizes (e.g. 100,1000,3000) run one after the other, each in a fresh manager and API server.
  const sizes = (args[0] ?? '1000').split(',').map(Number);
  const timeoutMs = (args[2] === undefined ? 1800 : Number(args[2])) * 1000;
  const maxUnavailableOf = (replicas: number) =>
    args[1] === undefined ? Math.max(1, Math.floor(replicas / 10)) : Number(args[1]);
  if (![...sizes, ...sizes.map(maxUnavailableOf)].every((v) => Number.isInteger(v) && v >= 1) || !(timeoutMs > 0)) {
    throw new Error(
      `usage: rollout [replicas=1000 | size,size,...] [maxUnavailable=10%] [timeoutSeconds=1800], got ${args.join(' ')}`,
    );
  }
  return { sizes, maxUnavailableOf, maxUnavailableLabel: args[1] ?? '10%', timeoutMs, managerFlags };
}

export async function runRolloutBench(allArgs: string[]): Promise<number> {
  const target = benchTargetFromEnv();
  const args = parseRolloutArgs(allArgs);
  if (target === 'both') return runRolloutComparison(allArgs, args);
  const runs: { replicas: number; results: PhaseResult[] }[] = [];
  for (const replicas of args.sizes)
    runs.push({
      replicas,
      results: await runRolloutSize(
        target,
        replicas,
        args.maxUnavailableOf(replicas),
        args.timeoutMs,
        args.managerFlags,
      ),
    });
  if (runs.length > 1) {
    const { header, rows } = scalingTable(runs);
    process.stdout.write(
      `\ntime per Machine by size (maxUnavailable ${args.maxUnavailableLabel})\n${renderTable(header, rows)}`,
    );
  }
  // BENCH_JSON=<file>: the figures for `BENCH_TARGET=both`, which runs each target in a process of its own.
  if (process.env.BENCH_JSON) writeFileSync(process.env.BENCH_JSON, JSON.stringify(runs));
  return 0;
}

function phaseCount(): number {
  const raw = process.env.BENCH_PHASES ?? '3';
  const n = Number(raw);
  if (![1, 2, 3].includes(n))
    throw new Error(`BENCH_PHASES must be 1 (create), 2 (+ in place) or 3 (+ replacement), got ${raw}`);
  return n;
}

async function runRolloutSize(
  targetName: BenchTarget,
  replicas: number,
  maxUnavailable: number,
  timeoutMs: number,
  managerFlags: string[],
): Promise<PhaseResult[]> {
  const log = (l: string) => process.stderr.write(`${l}\n`);
  let storage: () => NamedStorage[] = () => [];
  let informers: () => Record<string, number> = () => ({});
  const heap = await startHeapProfile(
    log,
    () => storage(),
    () => informers(),
  );
  const target = await startTarget(targetName, managerFlags, log);
  try {
    storage = () => target.storage();
    informers = () => target.app.get<InformerCache>(CACHE, { strict: false }).informerSizes();
    const bench = new RolloutBench(
      target.client,
      target,
      target.app.get<Registry>(METRICS_REGISTRY, { strict: false }),
      replicas,
      maxUnavailable,
      timeoutMs,
      log,
      () => target.workloadServers(),
      target.otherProcesses,
    );
    bench.heap = heap;
    const results = await bench.run(phaseCount());
    const otherNames = [...new Set(results.flatMap((r) => Object.keys(r.othersRssMiB)))];
    const rows: Cell[][] = results.map((r) => [
      r.phase,
      replicas,
      r.seconds,
      r.writes,
      r.writes / replicas,
      r.machineWrites / replicas,
      r.kept,
      r.replaced,
      r.rssMiB,
      ...otherNames.map((k) => r.othersRssMiB[k] ?? '-'),
    ]);
    const flags = managerFlags.length ? `; manager flags: ${managerFlags.join(' ')}` : '';
    process.stdout.write(
      `[${target.name}] MachineDeployment of ${replicas} Machines (+1 control plane Machine), maxSurge 0, maxUnavailable ${maxUnavailable}, zero-latency updater; ${target.where}${flags}\n`,
    );
    process.stdout.write(
      renderTable(
        [
          'phase',
          'machines',
          'seconds',
          'API writes',
          'writes/Machine',
          'excl. ExtensionConfig+Events',
          'kept (same UID)',
          'replaced',
          'peak RSS MiB',
          ...otherNames.map((k) => `${k} peak RSS MiB`),
        ],
        rows,
      ),
    );
    if (targetName === 'embedded') {
      process.stdout.write(
        `\nwrites per Machine by resource, verb and field manager\n${renderTable(['resource', 'verb', 'field manager', ...results.flatMap((r) => [r.phase, 'no-op', 'failed'])], writeBreakdown(results, replicas))}`,
      );
    } else {
      process.stdout.write(
        `\nwrites per Machine by resource and verb (kube-apiserver's apiserver_request_total)\n${renderTable(['resource', 'verb', ...results.map((r) => r.phase)], writeBreakdownByResource(results, replicas))}`,
      );
    }
    process.stdout.write(
      `\nreconciles per controller (controller_runtime_reconcile_total; seconds: summed wall time of the reconciles, concurrent ones overlapping)\n${renderTable(['controller', ...results.flatMap((r) => [r.phase, 'per Machine', 'seconds'])], reconcileRows(results, replicas))}`,
    );
    const [, inPlace, replacement] = results;
    if (replacement)
      process.stdout.write(
        `in-place vs replacement: time ${(inPlace.seconds / replacement.seconds).toFixed(2)}x, writes ${(inPlace.writes / replacement.writes).toFixed(2)}x\n\n`,
      );
    return results;
  } finally {
    await target.stop();
    await heap?.stop();
  }
}
