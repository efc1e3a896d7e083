// Benchmark 3: rollout of an N-Machine MachineDeployment through the whole manager (embedded API server, Machine /
// MachineSet / MachineDeployment / KCP controllers, in-memory provider, zero-latency reference updater), in place
// (version change) and by replacement (new infrastructure template), side by side: time to converge, API writes per
// Machine (counted at the API server), process RSS.
import 'reflect-metadata';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Session } from 'node:inspector';
import { join } from 'node:path';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { KubeConfig } from '@kubernetes/client-node';
import { CLUSTER_API_VERSION, MACHINE_DEPLOYMENT_NAME_LABEL, type Machine } from '@capi/api';
import { ApiServer, RequestMetrics, renderKubeconfig, type ApiServerOptions } from '@capi/apiserver';
import { CACHE, KubeClient, METRICS_REGISTRY, type Client, type InformerCache, type KubeObject } from '@capi/controller-runtime';
import type { Registry } from 'prom-client';
import { WORKLOAD_CLUSTERS, type StorageUsage, type WorkloadClusters, type WorkloadServer } from '@capi/inmemory';
import { applyHeapGrowingPercent, EMBEDDED_ENVIRONMENT, JsonLogger, LOGGER, buildManagerModule, embeddedCrds, loadManagerConfig, type EmbeddedEnvironment, type EmbeddedProviderOptions, type ManagerConfig } from '@capi/manager';
import { ownerProblems } from '../demo/flow';
import { createDemoCluster, DEFAULT_DEMO, infraTemplatePatch, machineTemplateObject, names, versionPatch, type DemoSpec } from '../demo/objects';
import { machineProblems } from '../demo/progress';
import { topAllocators } from './heap';
import { reconcileDelta, reconcileRows, reconcileSnapshot, type ReconcileCounts } from './reconciles';
import { scalingTable } from './scaling';
import { renderTable, type Cell } from './table';

/** Zero-latency provider and updater: VMs boot at once, UpdateMachine completes on its second call. */
const ZERO_LATENCY: EmbeddedProviderOptions = { provisioningDelayMs: 0, updater: { updateDurationSeconds: 0, updateJitterSeconds: 0, retryAfterSeconds: 1 } };

/**
 * BENCH_WORKLOAD_SERVERS (the manager's --embedded-workload-servers; an explicit manager flag wins): where the
 * in-memory workload clusters' API servers (the simulated remote clusters and their Nodes) run. `child-process`
 * (default): in a process of their own, as a real workload cluster is outside the manager's process, so the bench's
 * process is the manager + management API server (+ the bench's own client); the workload process's RSS is reported
 * beside it. `in-process`: in the bench's process, as the embedded default runs them.
 */
const workloadServersFlag = () => `--embedded-workload-servers=${process.env.BENCH_WORKLOAD_SERVERS ?? 'child-process'}`;

/** The embedded default with an API server we hold, so requests can be counted at the server. */
class CountingEmbeddedEnvironment implements EmbeddedEnvironment {
  server?: ApiServer;
  private dir?: string;

  /**
   * BENCH_STORAGE=sqlite: the management server stores in a SQLite file (WAL, synchronous=FULL) as the embedded default
   * does, so its rows live in the OS page cache rather than the process; the default, memory, keeps them in the heap's
   * neighbour (`:memory:`) and measures the CPU without disk syncs.
   */
  private storage(): ApiServerOptions['storage'] {
    const kind = process.env.BENCH_STORAGE ?? 'memory';
    if (kind === 'memory') return { type: 'memory' };
    if (kind !== 'sqlite') throw new Error(`BENCH_STORAGE must be memory or sqlite, got ${kind}`);
    this.dir = mkdtempSync(join(tmpdir(), 'capi-bench-'));
    return { type: 'sqlite', path: join(this.dir, 'objects.db') };
  }

  async start(): Promise<{ kubeconfig: string }> {
    // BENCH_PARSED_CACHE_CHARS: the management server's parsed-object cache budget (default: the server's own, 32 Mi chars).
    const cacheChars = process.env.BENCH_PARSED_CACHE_CHARS ? Number(process.env.BENCH_PARSED_CACHE_CHARS) : undefined;
    if (cacheChars !== undefined && !(cacheChars >= 0)) throw new Error(`BENCH_PARSED_CACHE_CHARS must be a number of chars, got ${process.env.BENCH_PARSED_CACHE_CHARS}`);
    this.server = new ApiServer({ storage: this.storage(), host: '127.0.0.1', parsedCacheChars: cacheChars });
    const started = await this.server.start();
    await this.server.installCrds(embeddedCrds());
    return { kubeconfig: renderKubeconfig({ ...started, name: 'capi-embedded' }) };
  }

  async stop(): Promise<void> {
    await this.server?.stop();
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
  }
}

interface PhaseResult { phase: string; seconds: number; writes: number; /** writes minus ExtensionConfig status and Events */ machineWrites: number; byResource: Record<string, number>; /** "<verb> <resource> <fieldManager>" → writes, and those that changed nothing */ byManager: Record<string, number>; noopByManager: Record<string, number>; failedByManager: Record<string, number>; kept: number; replaced: number; rssMiB: number; /** peak RSS of the workload servers' process, when they have one */ workloadRssMiB?: number; /** per controller, from its metrics */ reconciles: ReconcileCounts }

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function startManager(env: CountingEmbeddedEnvironment, managerFlags: string[] = []): Promise<{ app: INestApplicationContext; client: KubeClient; config: ManagerConfig }> {
  const loaded = loadManagerConfig(['--data-dir=', '--metrics-bind-address=0', '--health-probe-bind-address=0', workloadServersFlag(), ...managerFlags], {});
  if (loaded.help) throw new Error('unexpected --help');
  applyHeapGrowingPercent(loaded.config.heapGrowingPercent); // as the manager's main does (the bench is its process)
  const logger = JsonLogger.create({ level: 'error', destination: { write: () => undefined } });
  const root = buildManagerModule(loaded.config, { embeddedProvider: ZERO_LATENCY, providers: [{ provide: LOGGER, useValue: logger }, { provide: EMBEDDED_ENVIRONMENT, useValue: env }] });
  const app = await NestFactory.createApplicationContext(root, { logger: false, abortOnError: false });
  app.useLogger(logger);
  await app.init();
  const kc = new KubeConfig();
  kc.loadFromString(renderKubeconfig({ ...(await startedOf(env)), name: 'bench' }));
  return { app, client: new KubeClient(kc), config: loaded.config };
}

async function startedOf(env: CountingEmbeddedEnvironment) {
  const kc = new KubeConfig();
  kc.loadFromString(env.server!.kubeconfig());
  const cluster = kc.getCurrentCluster()!;
  return { url: cluster.server, token: kc.getCurrentUser()!.token!, caData: cluster.caData };
}

/** A bench cluster: one control plane Machine and a MachineDeployment of `replicas` (the demo's objects). */
export const benchSpec = (replicas: number, cluster = 'bench'): DemoSpec => ({ ...DEFAULT_DEMO, cluster, controlPlaneReplicas: 1, workerReplicas: replicas });

export async function mdMachines(client: Client, s: DemoSpec): Promise<Machine[]> {
  return (await client.list<Machine>(CLUSTER_API_VERSION, 'Machine', { namespace: s.namespace, labelSelector: `${MACHINE_DEPLOYMENT_NAME_LABEL}=${names(s).machineDeployment}` })).items;
}

export const patchMachineDeployment = (client: Client, s: DemoSpec, body: unknown) =>
  client.patch({ apiVersion: CLUSTER_API_VERSION, kind: 'MachineDeployment', namespace: s.namespace, name: names(s).machineDeployment }, 'merge', body);

export async function createBenchCluster(client: Client, s: DemoSpec, maxUnavailable: number): Promise<void> {
  // No surge; `maxUnavailable` Machines at a time, for the in-place and the replacement rollout alike.
  await createDemoCluster((obj) => client.create(obj), s, (md) => {
    md.spec.rollout = { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable } } };
  });
}

/**
 * What keeps the MachineDeployment from being settled at `version` (empty when settled). The Machines are listed only
 * once the MachineDeployment's status says it is settled: listing (and parsing) every Machine on each poll was ~13% of
 * the process's CPU at 300 Machines, i.e. the harness, not the manager; the answer is empty in the same cases.
 */
export async function machineDeploymentProblems(client: Client, s: DemoSpec, version: string): Promise<string[]> {
  const md = await client.tryGet<KubeObject>({ apiVersion: CLUSTER_API_VERSION, kind: 'MachineDeployment', namespace: s.namespace, name: names(s).machineDeployment });
  const mdProblems = ownerProblems('MachineDeployment', md, s.workerReplicas);
  if (mdProblems.length > 0) return mdProblems;
  const machines = await mdMachines(client, s);
  return [
    ...(machines.length === s.workerReplicas ? [] : [`${machines.length} Machines (want ${s.workerReplicas})`]),
    ...machines.flatMap((m) => machineProblems(m, version)),
  ];
}

/** Polls until settled; throws naming what is not after timeoutMs. `client()` may change (e.g. after a restart). */
export async function waitForMachineDeployment(client: () => Client, s: DemoSpec, version: string, timeoutMs: number, log: (l: string) => void, phase: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let problems: string[] = [];
  let lastLog = Date.now();
  while (Date.now() < deadline) {
    try {
      problems = await machineDeploymentProblems(client(), s, version);
    } catch (e) {
      problems = [`reading state: ${(e as Error).message}`];
    }
    if (problems.length === 0) return;
    if (Date.now() - lastLog > 10_000) {
      lastLog = Date.now();
      log(`${phase}: ${problems.length} problems, e.g. ${problems.slice(0, 2).join('; ')}`);
    }
    await sleep(Math.min(3000, 200 + 2 * s.workerReplicas)); // each poll lists every Machine: keep it a small share of the CPU
  }
  throw new Error(`${phase} did not converge within ${timeoutMs / 1000} s: ${problems.slice(0, 10).join('; ')}`);
}

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(0);

/** RSS of another process in bytes (Linux /proc), undefined when it cannot be read. */
function rssOf(pid: number): number | undefined {
  try {
    return Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]) * 4096;
  } catch {
    return undefined;
  }
}

/**
 * Samples the process RSS every 250 ms: a phase reports its peak, not the RSS at its end, and what the peak was made of
 * (V8 heap used and committed, external memory incl. array buffers; the rest is native: SQLite, code, malloc). Also
 * the peak RSS of the workload servers' process when they run in one of their own (`workloadPid`).
 */
function startRssSampler(workloadPid: () => number | undefined = () => undefined): { peakMiB(): number; workloadPeakMiB(): number | undefined; peakBreakdown(): string; stop(): void } {
  let peak = process.memoryUsage();
  let workloadPeak: number | undefined;
  const sample = () => {
    const m = process.memoryUsage();
    if (m.rss > peak.rss) peak = m;
    const pid = workloadPid();
    const other = pid && pid !== process.pid ? rssOf(pid) : undefined;
    if (other !== undefined && other > (workloadPeak ?? 0)) workloadPeak = other;
  };
  const timer = setInterval(sample, 250);
  timer.unref();
  return {
    peakMiB: () => { sample(); return peak.rss / 2 ** 20; },
    workloadPeakMiB: () => (workloadPeak === undefined ? undefined : workloadPeak / 2 ** 20),
    peakBreakdown: () => `V8 heap used ${mib(peak.heapUsed)} of ${mib(peak.heapTotal)} committed, external ${mib(peak.external)} (array buffers ${mib(peak.arrayBuffers)}), other native ${mib(peak.rss - peak.heapTotal - peak.external)}`,
    stop: () => clearInterval(timer),
  };
}

/** An inspector session on this process with a promise-returning `post`. */
function inspectorSession(): { session: Session; post: (method: string, params?: object) => Promise<any> } {
  const session = new Session();
  session.connect();
  return { session, post: (method, params) => new Promise<any>((resolve, reject) => session.post(method, params, (err, res) => (err ? reject(err) : resolve(res)))) };
}

/** What the heap profile reads of an API server, in this process (ApiServer) or another (WorkloadServer). */
type StorageReporter = { storageUsage(): StorageUsage | Promise<StorageUsage> };

/**
 * With BENCH_HEAP_PROFILE=<dir>, V8's sampling heap profiler runs for the whole size and, after each phase, the live
 * allocations by function are written there (`.heapprofile`, opens in Chrome DevTools) and the top ones logged.
 */
async function startHeapProfile(log: (l: string) => void, servers: () => StorageReporter[] = () => [], informers: () => Record<string, number> = () => ({})): Promise<{ snapshot(name: string): Promise<void>; stop(): Promise<void> } | undefined> {
  const dir = process.env.BENCH_HEAP_PROFILE;
  if (!dir) return undefined;
  const { session, post } = inspectorSession();
  await post('HeapProfiler.enable');
  await post('HeapProfiler.startSampling', { samplingInterval: 64 * 1024 });
  return {
    snapshot: async (name: string) => {
      await post('HeapProfiler.collectGarbage');
      const { profile } = await post('HeapProfiler.getSamplingProfile');
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `${name.replace(/\W+/g, '-')}.heapprofile`), JSON.stringify(profile));
      const m = process.memoryUsage();
      log(`${name}: after GC rss ${mib(m.rss)} MiB, V8 heap used ${mib(m.heapUsed)} of ${mib(m.heapTotal)}, external ${mib(m.external)} (array buffers ${mib(m.arrayBuffers)})`);
      const storage = await Promise.all(servers().map((sv) => sv.storageUsage()));
      const sum = (f: (u: StorageUsage) => number) => storage.reduce((n, u) => n + f(u), 0);
      log(`${name}: API servers' storage (${storage.length}): SQLite ${mib(sum((u) => u.databaseBytes))} MiB, parsed cache ${sum((u) => u.parsedObjects)} objects of ${mib(sum((u) => u.parsedChars))} Mi chars JSON`);
      // The first server is the management one; the others are the in-memory workload clusters' (simulated remote clusters).
      storage.forEach((u, i) => log(`${name}:   ${i === 0 ? 'management' : `workload cluster ${i}`}: SQLite ${mib(u.databaseBytes)} MiB, parsed cache ${u.parsedObjects} objects of ${mib(u.parsedChars)} Mi chars`));
      log(`${name}: manager informers (objects): ${Object.entries(informers()).map(([k, v]) => `${k}=${v}`).join(', ')}`);
      log(`${name}: live heap by allocating function\n${renderTable(['function', 'MiB'], topAllocators(profile, 25))}`);
    },
    stop: async () => { await post('HeapProfiler.stopSampling'); session.disconnect(); },
  };
}

/** With BENCH_CPU_PROFILE=<dir>, a V8 CPU profile of each phase is written there (open in Chrome DevTools). */
async function startPhaseProfile(phase: string): Promise<{ stop(): Promise<void> } | undefined> {
  const dir = process.env.BENCH_CPU_PROFILE;
  if (!dir) return undefined;
  const { session, post } = inspectorSession();
  await post('Profiler.enable');
  await post('Profiler.start');
  return {
    stop: async () => {
      const { profile } = await post('Profiler.stop');
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `${phase.replace(/\W+/g, '-')}.cpuprofile`), JSON.stringify(profile));
      session.disconnect();
    },
  };
}

export class RolloutBench {
  private readonly s: DemoSpec;
  heap?: { snapshot(name: string): Promise<void> };

  constructor(
    private readonly client: Client,
    private readonly server: ApiServer,
    private readonly registry: Registry,
    replicas: number,
    private readonly maxUnavailable: number,
    private readonly timeoutMs: number,
    private readonly log: (l: string) => void,
    /** The in-memory workload clusters' API servers (Node reads are counted there, not at the management server). */
    private readonly workloadServers: () => WorkloadServer[] = () => [],
    /** The process those servers run in, when not this one (its RSS is sampled too). */
    private readonly workloadPid: () => number | undefined = () => undefined,
  ) {
    this.s = benchSpec(replicas);
  }

  private mdMachines = () => mdMachines(this.client, this.s);
  private patchMd = (body: unknown) => patchMachineDeployment(this.client, this.s, body);
  private settle = (phase: string, version: string) => waitForMachineDeployment(() => this.client, this.s, version, this.timeoutMs, this.log, phase);
  private create = () => createBenchCluster(this.client, this.s, this.maxUnavailable);

  /** Applies `change`, waits for convergence and measures it. */
  async phase(phase: string, version: string, change: () => Promise<unknown>): Promise<PhaseResult> {
    const before = new Set((await this.mdMachines()).map((m) => m.metadata.uid));
    this.server.resetRequests();
    await Promise.all(this.workloadServers().map((w) => w.resetRequests()));
    const reconcilesBefore = await reconcileSnapshot(this.registry);
    const profile = await startPhaseProfile(phase);
    const rss = startRssSampler(this.workloadPid);
    const t0 = Date.now();
    await change();
    await this.settle(phase, version);
    const seconds = (Date.now() - t0) / 1000;
    await profile?.stop();
    rss.stop();
    await this.heap?.snapshot(`${this.s.workerReplicas}-${phase}`);
    const counts = this.server.countRequests();
    const reconciles = reconcileDelta(reconcilesBefore, await reconcileSnapshot(this.registry));
    const after = await this.mdMachines();
    const kept = after.filter((m) => before.has(m.metadata.uid)).length;
    const byResource: Record<string, number> = {};
    for (const [k, v] of Object.entries(counts.byVerbResource)) if (!k.startsWith('get ') && !k.startsWith('list ') && !k.startsWith('watch ')) byResource[k] = v;
    const unrelated = Object.entries(byResource).filter(([k]) => / runtime\.cluster\.x-k8s\.io\/|events/.test(k)).reduce((n, [, v]) => n + v, 0);
    const writes = RequestMetrics.writes(counts);
    const topReads = (c: Record<string, number>) => Object.entries(c).filter(([k]) => /^(get|list|watch) /.test(k)).sort((a, b) => b[1] - a[1]).slice(0, 10).map(([k, v]) => `${k}=${v}`).join(', ');
    if (process.env.BENCH_READS) {
      this.log(`${phase} reads: ${topReads(counts.byVerbResource)}`);
      const workload: Record<string, number> = {};
      for (const c of await Promise.all(this.workloadServers().map((w) => w.countRequests()))) for (const [k, v] of Object.entries(c.byVerbResource)) workload[k] = (workload[k] ?? 0) + v;
      this.log(`${phase} workload cluster reads: ${topReads(workload)}`);
    }
    // Logged at once too: a long run (10,000) shows each phase's figures before the tables at the end.
    const rssMiB = rss.peakMiB();
    const workloadRssMiB = rss.workloadPeakMiB();
    const workloadRss = workloadRssMiB === undefined ? '' : `; workload servers' process: peak RSS ${workloadRssMiB.toFixed(0)} MiB`;
    this.log(`${phase}: ${seconds.toFixed(1)} s, ${(writes / this.s.workerReplicas).toFixed(2)} writes/Machine, peak RSS ${rssMiB.toFixed(0)} MiB (${rss.peakBreakdown()})${workloadRss}`);
    return { phase, seconds, writes, machineWrites: writes - unrelated, byResource, byManager: counts.writesByManager, noopByManager: counts.noopWritesByManager, failedByManager: counts.failedWritesByManager, kept, replaced: before.size - kept, rssMiB, workloadRssMiB, reconciles };
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
    const inPlace = await this.phase('in-place (version)', s.upgradeVersion, () => this.patchMd(versionPatch.machineDeployment(s.upgradeVersion)));
    results.push(inPlace);
    this.log(`in-place rollout converged in ${inPlace.seconds.toFixed(1)} s`);
    if (phases < 3) return results;
    results.push(await this.phase('replacement (infra template)', s.upgradeVersion, async () => {
      await this.client.create(machineTemplateObject(s, n.mdInfraTemplate(2), s.newImage));
      await this.patchMd(infraTemplatePatch.machineDeployment(n.mdInfraTemplate(2)));
    }));
    return results;
  }
}

/**
 * One row per (resource, verb, field manager) seen in any phase, most first: per phase, writes per Machine and how
 * many of those changed nothing at the server (no-op) or were refused (failed: conflicts mostly).
 */
export function writeBreakdown(results: Pick<PhaseResult, 'byManager' | 'noopByManager' | 'failedByManager'>[], replicas: number): Cell[][] {
  const keys = [...new Set(results.flatMap((r) => Object.keys(r.byManager)))];
  const total = (k: string) => results.reduce((n, r) => n + (r.byManager[k] ?? 0), 0);
  return keys.sort((a, b) => total(b) - total(a)).map((k) => {
    const [verb, resource, manager] = k.split(' ');
    return [resource, verb, manager, ...results.flatMap((r) => [(r.byManager[k] ?? 0) / replicas, (r.noopByManager[k] ?? 0) / replicas, (r.failedByManager[k] ?? 0) / replicas])];
  });
}

export async function runRolloutBench(allArgs: string[]): Promise<number> {
  // Arguments starting with -- are manager flags, e.g. --kube-api-qps=20 (the embedded default runs without a limit).
  const managerFlags = allArgs.filter((a) => a.startsWith('--'));
  const args = allArgs.filter((a) => !a.startsWith('--'));
  // Several sizes (e.g. 100,1000,3000) run one after the other, each in a fresh manager and API server.
  const sizes = (args[0] ?? '1000').split(',').map(Number);
  const timeoutMs = (args[2] === undefined ? 1800 : Number(args[2])) * 1000;
  const maxUnavailableOf = (replicas: number) => (args[1] === undefined ? Math.max(1, Math.floor(replicas / 10)) : Number(args[1]));
  if (![...sizes, ...sizes.map(maxUnavailableOf)].every((v) => Number.isInteger(v) && v >= 1) || !(timeoutMs > 0)) {
    throw new Error(`usage: rollout [replicas=1000 | size,size,...] [maxUnavailable=10%] [timeoutSeconds=1800], got ${args.join(' ')}`);
  }
  const runs: { replicas: number; results: PhaseResult[] }[] = [];
  for (const replicas of sizes) runs.push({ replicas, results: await runRolloutSize(replicas, maxUnavailableOf(replicas), timeoutMs, managerFlags) });
  if (runs.length > 1) {
    const { header, rows } = scalingTable(runs);
    process.stdout.write(`\ntime per Machine by size (maxUnavailable ${args[1] ?? '10%'})\n${renderTable(header, rows)}`);
  }
  return 0;
}

function phaseCount(): number {
  const raw = process.env.BENCH_PHASES ?? '3';
  const n = Number(raw);
  if (![1, 2, 3].includes(n)) throw new Error(`BENCH_PHASES must be 1 (create), 2 (+ in place) or 3 (+ replacement), got ${raw}`);
  return n;
}

async function runRolloutSize(replicas: number, maxUnavailable: number, timeoutMs: number, managerFlags: string[]): Promise<PhaseResult[]> {
  const log = (l: string) => process.stderr.write(`${l}\n`);
  let servers: () => StorageReporter[] = () => [];
  let informers: () => Record<string, number> = () => ({});
  const heap = await startHeapProfile(log, () => servers(), () => informers());
  const env = new CountingEmbeddedEnvironment();
  const { app, client, config } = await startManager(env, managerFlags);
  try {
    const workloads = app.get<WorkloadClusters>(WORKLOAD_CLUSTERS, { strict: false });
    servers = () => [env.server!, ...workloads.list().map((w) => w.server)];
    informers = () => app.get<InformerCache>(CACHE, { strict: false }).informerSizes();
    const bench = new RolloutBench(client, env.server!, app.get<Registry>(METRICS_REGISTRY, { strict: false }), replicas, maxUnavailable, timeoutMs, log, () => workloads.list().map((w) => w.server), () => workloads.serversPid());
    bench.heap = heap;
    const results = await bench.run(phaseCount());
    const separate = config.embeddedWorkloadServers === 'child-process';
    const rows: Cell[][] = results.map((r) => [r.phase, replicas, r.seconds, r.writes, r.writes / replicas, r.machineWrites / replicas, r.kept, r.replaced, r.rssMiB, ...(separate ? [r.workloadRssMiB ?? '-'] : [])]);
    const where = separate ? `manager, API server (storage: ${process.env.BENCH_STORAGE ?? 'memory'}) and bench share one process, the workload clusters' API servers run in another` : `manager, API server (storage: ${process.env.BENCH_STORAGE ?? 'memory'}), workload clusters' API servers and bench share one process`;
    process.stdout.write(`MachineDeployment of ${replicas} Machines (+1 control plane Machine), maxSurge 0, maxUnavailable ${maxUnavailable}, zero-latency updater; ${where}${managerFlags.length ? `; manager flags: ${managerFlags.join(' ')}` : ''}\n`);
    process.stdout.write(renderTable(['phase', 'machines', 'seconds', 'API writes', 'writes/Machine', 'excl. ExtensionConfig+Events', 'kept (same UID)', 'replaced', 'peak RSS MiB', ...(separate ? ['workload process peak RSS MiB'] : [])], rows));
    process.stdout.write(`\nwrites per Machine by resource, verb and field manager\n${renderTable(['resource', 'verb', 'field manager', ...results.flatMap((r) => [r.phase, 'no-op', 'failed'])], writeBreakdown(results, replicas))}`);
    process.stdout.write(`\nreconciles per controller (controller_runtime_reconcile_total; seconds: summed wall time of the reconciles, concurrent ones overlapping)\n${renderTable(['controller', ...results.flatMap((r) => [r.phase, 'per Machine', 'seconds'])], reconcileRows(results, replicas))}`);
    const [, inPlace, replacement] = results;
    if (replacement) process.stdout.write(`in-place vs replacement: time ${(inPlace.seconds / replacement.seconds).toFixed(2)}x, writes ${(inPlace.writes / replacement.writes).toFixed(2)}x\n\n`);
    return results;
  } finally {
    client.close();
    await app.close();
    await heap?.stop();
  }
}
