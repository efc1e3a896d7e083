// What the rollout bench measures of processes: peak RSS and CPU time of its own process and of others (the manager,
// its API server, workload servers, kube-apiserver, etcd) sampled every 250 ms, and with BENCH_HEAP_PROFILE / BENCH_CPU_PROFILE V8 profiles per phase.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';
import type { StorageUsage } from '@capi/inmemory';
import { topAllocators } from './heap';
import { renderTable } from './table';

export const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(0);

/** RSS of another process in bytes (Linux /proc), undefined when it cannot be read. */
function rssOf(pid: number): number | undefined {
  try {
    return Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]) * 4096;
  } catch {
    return undefined;
  }
}

/** CPU seconds (user + system) a process has used (Linux /proc, clock ticks at 100 Hz), undefined when unreadable. */
function cpuSecondsOf(pid: number): number | undefined {
  try {
    // Fields after the command name (which may hold spaces): state is the 3rd field, utime/stime the 14th/15th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
      .replace(/^.*\) /s, '')
      .split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/** The children of a process (Linux /proc), empty when it has none or is gone. */
export function childPids(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((tid) =>
      readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean).map(Number),
    );
  } catch {
    return [];
  }
}

/** Processes other than this one whose peak RSS a phase reports, by name (their pid may change, or be unknown yet). */
export type OtherProcesses = () => Record<string, number | undefined>;

export interface RssSampler {
  peakMiB(): number;
  /** Peak RSS of each other process seen, by name. */
  othersPeakMiB(): Record<string, number>;
  peakBreakdown(): string;
  /**
   * CPU seconds used since the sampler started: this process, and each other process by name (one that started after
   * the sampler, e.g. the workload servers' at the first cluster, counts from its start).
   */
  cpuSeconds(): { self: number; others: Record<string, number> };
  stop(): void;
}

/**
 * Samples the process RSS every 250 ms: a phase reports its peak, not the RSS at its end, and what the peak was made of
 * (V8 heap used and committed, external memory incl. array buffers; the rest is native: SQLite, code, malloc). Also
 * the peak RSS of `others` (the workload servers' process, kube-apiserver, etcd).
 */
export function startRssSampler(others: OtherProcesses = () => ({})): RssSampler {
  let peak = process.memoryUsage();
  const otherPeaks: Record<string, number> = {};
  const cpuAtStart = process.cpuUsage();
  // CPU time of each other process when first seen: at start, or 0 for one started since (its whole life is this phase).
  const cpuAtFirstSight = new Map<number, { name: string; cpu: number }>();
  const see = (atStart: boolean) => {
    for (const [name, pid] of Object.entries(others())) {
      if (!pid || pid === process.pid || cpuAtFirstSight.has(pid)) continue;
      const cpu = atStart ? cpuSecondsOf(pid) : 0;
      if (cpu !== undefined) cpuAtFirstSight.set(pid, { name, cpu });
    }
  };
  see(true);
  const sample = () => {
    const m = process.memoryUsage();
    if (m.rss > peak.rss) peak = m;
    see(false);
    for (const [name, pid] of Object.entries(others())) {
      const rss = pid && pid !== process.pid ? rssOf(pid) : undefined;
      if (rss !== undefined && rss > (otherPeaks[name] ?? 0)) otherPeaks[name] = rss;
    }
  };
  const timer = setInterval(sample, 250);
  timer.unref();
  return {
    peakMiB: () => {
      sample();
      return peak.rss / 2 ** 20;
    },
    othersPeakMiB: () => Object.fromEntries(Object.entries(otherPeaks).map(([k, v]) => [k, v / 2 ** 20])),
    peakBreakdown: () =>
      `V8 heap used ${mib(peak.heapUsed)} of ${mib(peak.heapTotal)} committed, external ${mib(peak.external)} (array buffers ${mib(peak.arrayBuffers)}), other native ${mib(peak.rss - peak.heapTotal - peak.external)}`,
    cpuSeconds: () => {
      const self = process.cpuUsage(cpuAtStart);
      const othersCpu: Record<string, number> = {};
      for (const [pid, { name, cpu }] of cpuAtFirstSight) {
        const now = cpuSecondsOf(pid);
        if (now !== undefined) othersCpu[name] = (othersCpu[name] ?? 0) + now - cpu;
      }
      return { self: (self.user + self.system) / 1e6, others: othersCpu };
    },
    stop: () => clearInterval(timer),
  };
}

/** An inspector session on this process with a promise-returning `post`. */
function inspectorSession(): { session: Session; post: (method: string, params?: object) => Promise<any> } {
  const session = new Session();
  session.connect();
  return {
    session,
    post: (method, params) =>
      new Promise<any>((resolve, reject) =>
        session.post(method, params, (err, res) => (err ? reject(err) : resolve(res))),
      ),
  };
}

/** What the heap profile reads of an API server, in this process (ApiServer) or another (WorkloadServer). */
export type StorageReporter = { storageUsage(): StorageUsage | Promise<StorageUsage> };
/** An API server of ours in the bench, by role ("management", "workload cluster 3"). */
export type NamedStorage = { name: string; server: StorageReporter };

/**
 * With BENCH_HEAP_PROFILE=<dir>, V8's sampling heap profiler runs for the whole size and, after each phase, the live
 * allocations by function are written there (`.heapprofile`, opens in Chrome DevTools) and the top ones logged.
 */
export async function startHeapProfile(
  log: (l: string) => void,
  servers: () => NamedStorage[] = () => [],
  informers: () => Record<string, number> = () => ({}),
): Promise<{ snapshot(name: string): Promise<void>; stop(): Promise<void> } | undefined> {
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
      log(
        `${name}: after GC rss ${mib(m.rss)} MiB, V8 heap used ${mib(m.heapUsed)} of ${mib(m.heapTotal)}, external ${mib(m.external)} (array buffers ${mib(m.arrayBuffers)})`,
      );
      const named = servers();
      const storage = await Promise.all(named.map((n) => n.server.storageUsage()));
      const sum = (f: (u: StorageUsage) => number) => storage.reduce((n, u) => n + f(u), 0);
      log(
        `${name}: API servers' storage (${storage.length}): SQLite ${mib(sum((u) => u.databaseBytes))} MiB, parsed cache ${sum((u) => u.parsedObjects)} objects of ${mib(sum((u) => u.parsedChars))} Mi chars JSON`,
      );
      storage.forEach((u, i) =>
        log(
          `${name}:   ${named[i].name}: SQLite ${mib(u.databaseBytes)} MiB, parsed cache ${u.parsedObjects} objects of ${mib(u.parsedChars)} Mi chars`,
        ),
      );
      log(
        `${name}: manager informers (objects): ${Object.entries(informers())
          .map(([k, v]) => `${k}=${v}`)
          .join(', ')}`,
      );
      log(`${name}: live heap by allocating function\n${renderTable(['function', 'MiB'], topAllocators(profile, 25))}`);
    },
    stop: async () => {
      await post('HeapProfiler.stopSampling');
      session.disconnect();
    },
  };
}

/** With BENCH_CPU_PROFILE=<dir>, a V8 CPU profile of each phase is written there (open in Chrome DevTools). */
export async function startPhaseProfile(phase: string): Promise<{ stop(): Promise<void> } | undefined> {
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
