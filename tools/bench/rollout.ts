// Benchmark 3: rollout of an N-Machine MachineDeployment through the whole manager (Machine / MachineSet /
// MachineDeployment / KCP controllers, in-memory provider, zero-latency reference updater), in place (version change)
// and by replacement (new infrastructure template), side by side: time to converge, writes per Machine at the
// management API server, the manager's requests to it, CPU time and peak RSS of each process (the manager's apart when
// it runs in a process of its own, BENCH_MANAGER=process, the default). BENCH_TARGET picks that API server: embedded
// (default), kube (etcd + kube-apiserver) or both (each in its own process, then the figures side by side;
// rollout-compare.ts).
import type { Client } from '@capi/controller-runtime';
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
import { clientRequestsByMethod, clientRequestsDelta } from './manager-cost';
import { reconcileDelta, reconcileSnapshot, type ReconcileCounts } from './reconciles';
import { startEmbeddedInProcess, startKubeInProcess } from './rollout-in-process';
import { startEmbeddedProcesses, startKubeProcesses } from './rollout-processes';
import { printTables } from './rollout-tables';
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
  managerLayoutFromEnv,
  type BenchTarget,
  type ManagerLayout,
  type PhaseWrites,
  type RolloutTarget,
} from './rollout-targets';
import { scalingTable } from './scaling';
import { renderTable } from './table';
import { stopOnInterrupt } from './interrupt';

export interface PhaseResult extends PhaseWrites {
  phase: string;
  seconds: number;
  /** writes minus ExtensionConfig status and Events */
  machineWrites: number;
  kept: number;
  replaced: number;
  /** peak RSS of the bench's process (with the manager in it when BENCH_MANAGER=in-process) */
  rssMiB: number;
  /** peak RSS of the other processes (manager, API server, workload servers, kube-apiserver, etcd), by name */
  othersRssMiB: Record<string, number>;
  /** CPU seconds of the bench's process and of the others during the phase */
  cpuSeconds: { self: number; others: Record<string, number> };
  /** per controller, from its metrics */
  reconciles: ReconcileCounts;
  /** The manager's requests to the management API server by HTTP method (rest_client_requests_total). */
  clientRequests: Record<string, number>;
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
    /** The management API server's write counter and the manager's metrics (the target's). */
    private readonly target: Pick<
      RolloutTarget,
      'resetWrites' | 'countWrites' | 'managementReads' | 'managerMetrics' | 'managementHost'
    >,
    replicas: number,
    private readonly maxUnavailable: number,
    private readonly timeoutMs: number,
    private readonly log: (l: string) => void,
    /** The in-memory workload clusters' API servers (Node reads are counted there, not at the management server). */
    private readonly workloadServers: () => WorkloadServer[] = () => [],
    /** Processes besides this one whose peak RSS and CPU time are reported. */
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
    const metricsBefore = await this.target.managerMetrics();
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
    const metricsAfter = await this.target.managerMetrics();
    const reconciles = reconcileDelta(reconcileSnapshot(metricsBefore), reconcileSnapshot(metricsAfter));
    const host = this.target.managementHost;
    const clientRequests = clientRequestsDelta(
      clientRequestsByMethod(metricsBefore, host),
      clientRequestsByMethod(metricsAfter, host),
    );
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
      const servers = this.workloadServers();
      this.log(
        `${phase} workload cluster reads: ${servers.length ? topReads(workload) : 'counted with BENCH_MANAGER=in-process only'}`,
      );
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
    const requests = Object.values(clientRequests).reduce((a, b) => a + b, 0);
    this.log(
      `${phase}: ${seconds.toFixed(1)} s, ${(counted.writes / this.s.workerReplicas).toFixed(2)} writes/Machine, manager requests ${(requests / this.s.workerReplicas).toFixed(2)}/Machine; bench process: peak RSS ${rssMiB.toFixed(0)} MiB (${rss.peakBreakdown()}), CPU ${cpuSeconds.self.toFixed(1)} s${others}`,
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
      clientRequests,
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

/** The target's processes in the layout asked for (rollout-processes.ts, rollout-in-process.ts). */
function startTarget(
  target: BenchTarget,
  layout: ManagerLayout,
  flags: string[],
  log: (l: string) => void,
): Promise<RolloutTarget> {
  if (layout === 'process') return target === 'kube' ? startKubeProcesses(flags, log) : startEmbeddedProcesses(flags);
  return target === 'kube' ? startKubeInProcess(flags, log) : startEmbeddedInProcess(flags);
}

async function runRolloutSize(
  targetName: BenchTarget,
  replicas: number,
  maxUnavailable: number,
  timeoutMs: number,
  managerFlags: string[],
): Promise<PhaseResult[]> {
  const log = (l: string) => process.stderr.write(`${l}\n`);
  const layout = managerLayoutFromEnv();
  let storage: () => NamedStorage[] = () => [];
  let informers: () => Record<string, number> = () => ({});
  const heap = await startHeapProfile(
    log,
    () => storage(),
    () => informers(),
  );
  const target = await startTarget(targetName, layout, managerFlags, log);
  const interrupt = stopOnInterrupt(async () => {
    await target.stop();
    await heap?.stop();
  }, log);
  try {
    storage = () => target.storage();
    informers = () => target.informers();
    const bench = new RolloutBench(
      target.client,
      target,
      replicas,
      maxUnavailable,
      timeoutMs,
      log,
      () => target.workloadServers(),
      target.otherProcesses,
    );
    bench.heap = heap;
    const results = await bench.run(phaseCount());
    printTables(target, results, replicas, maxUnavailable, managerFlags);
    return results;
  } catch (e) {
    if (interrupt.interrupted) return interrupt.exiting();
    throw e;
  } finally {
    interrupt.off();
    await target.stop();
    await heap?.stop();
  }
}
