// Where the rollout bench runs the manager (with the in-memory provider and a zero-latency reference updater) and its
// management API server, and how it counts that server's writes. BENCH_MANAGER picks the layout:
//   process     (default) the manager in a process of its own (manager-child.ts on --kubeconfig), so its CPU time and
//               RSS are its own (rollout-processes.ts); on embedded the standalone API server in another process;
//   in-process  the manager in the bench's process (rollout-in-process.ts); on embedded the embedded API server there
//               too: what the V8 profiles (BENCH_CPU_PROFILE, BENCH_HEAP_PROFILE) and the workload clusters' read
//               counts need.
// Targets: embedded (writes counted by the server, per field manager and outcome too) or kube (etcd + kube-apiserver in
// their own processes, set up as `npm run kube:up` does: deploy/ applied with kubectl, the manager on its
// ServiceAccount's kubeconfig; writes counted from kube-apiserver's apiserver_request_total).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { hostOf, KubeClient } from '@capi/controller-runtime';
import type { WorkloadServer } from '@capi/inmemory';
import { kubeAssetsFolder, startManagementCluster, type ManagementCluster } from '../kube/management-cluster';
import type { ApiServerRequests } from './apiserver-requests';
import type { NamedStorage, OtherProcesses } from './process-stats';

export const BENCH_TARGETS = ['embedded', 'kube'] as const;
export type BenchTarget = (typeof BENCH_TARGETS)[number];

/** BENCH_TARGET: embedded (default), kube, or both (each in a process of its own, figures side by side). */
export function benchTargetFromEnv(env: NodeJS.ProcessEnv = process.env): BenchTarget | 'both' {
  const t = env.BENCH_TARGET || 'embedded';
  if (t !== 'embedded' && t !== 'kube' && t !== 'both')
    throw new Error(`BENCH_TARGET must be embedded, kube or both, got ${t}`);
  return t;
}

export type ManagerLayout = 'process' | 'in-process';

/**
 * BENCH_MANAGER: process (default) or in-process. The V8 profiles and the parsed-cache cap act on the bench's own
 * process and the embedded server in it: they need in-process.
 */
export function managerLayoutFromEnv(env: NodeJS.ProcessEnv = process.env): ManagerLayout {
  const layout = env.BENCH_MANAGER || 'process';
  if (layout !== 'process' && layout !== 'in-process')
    throw new Error(`BENCH_MANAGER must be process or in-process, got ${layout}`);
  const inProcessOnly = ['BENCH_CPU_PROFILE', 'BENCH_HEAP_PROFILE', 'BENCH_PARSED_CACHE_CHARS'].filter((k) => env[k]);
  if (layout === 'process' && inProcessOnly.length)
    throw new Error(`${inProcessOnly.join(' and ')} act on the bench's own process: set BENCH_MANAGER=in-process`);
  return layout;
}

/** BENCH_STORAGE: the embedded management server's storage, memory (default) or sqlite. */
export function benchStorage(env: NodeJS.ProcessEnv = process.env): 'memory' | 'sqlite' {
  const kind = env.BENCH_STORAGE || 'memory';
  if (kind !== 'memory' && kind !== 'sqlite') throw new Error(`BENCH_STORAGE must be memory or sqlite, got ${kind}`);
  return kind;
}

/** Writes of a phase at the management API server, keyed "<verb> <group>/<plural>[/<sub>]" (+ " <field manager>"). */
export interface PhaseWrites {
  writes: number;
  byResource: Record<string, number>;
  /** Empty on kube (kube-apiserver's counter has no field-manager label). */
  byManager: Record<string, number>;
  noopByManager: Record<string, number>;
  failedByManager: Record<string, number>;
}

export interface RolloutTarget {
  name: BenchTarget;
  /** The bench's own client (admin), not the manager's. */
  client: KubeClient;
  /** Where things run, for the table's title. */
  where: string;
  /** What runs in the bench's own process, for the process table ("bench", or "manager + API server + bench"). */
  selfName: string;
  /** The manager's metrics now, in Prometheus text (its registry here, or its /metrics endpoint). */
  managerMetrics(): Promise<string>;
  /** The management API server's `host` label in the manager's rest_client_requests_total. */
  managementHost: string;
  resetWrites(): Promise<void>;
  countWrites(): Promise<PhaseWrites>;
  /** Reads at the management server by verb and resource (BENCH_READS), up to the last countWrites(). */
  managementReads(): Record<string, number> | undefined;
  /** The workload clusters' API servers when the manager runs in this process (their reads are counted there). */
  workloadServers(): WorkloadServer[];
  otherProcesses: OtherProcesses;
  storage(): NamedStorage[];
  /** Objects per manager informer (BENCH_HEAP_PROFILE), when the manager runs in this process. */
  informers(): Record<string, number>;
  stop(): Promise<void>;
}

/**
 * BENCH_WORKLOAD_SERVERS (the manager's --embedded-workload-servers; an explicit manager flag wins): where the
 * in-memory workload clusters' API servers (the simulated remote clusters and their Nodes) run. `child-process`
 * (default): in a process of their own, as a real workload cluster is outside the manager's process; its RSS and CPU
 * are reported apart. `in-process`: in the manager's process, as the embedded default runs them.
 */
export const workloadServersFlag = () =>
  `--embedded-workload-servers=${process.env.BENCH_WORKLOAD_SERVERS ?? 'child-process'}`;

export const workloadWhere = (mode: string, inManager: string) =>
  mode === 'child-process'
    ? "the workload clusters' API servers in a child process of the manager"
    : `the workload clusters' API servers ${inManager}`;

/** The flags both targets give the manager against an external API server (the bench's --arguments come after). */
export const EXTERNAL_SERVER_FLAGS = [
  '--embedded-provider',
  '--feature-gates=RuntimeSDK=true,InPlaceUpdates=true',
  // Like the embedded default, no client-side rate limit, so both targets measure the same manager; give
  // --kube-api-qps=100 --kube-api-burst=200 for the deployed default.
  '--kube-api-qps=-1',
];

/** The API server's `host` label in client metrics (rest_client_requests_total) for a kubeconfig's current cluster. */
export function hostOfKubeconfig(kubeconfig: string): string {
  const kc = new KubeConfig();
  kc.loadFromString(kubeconfig);
  return hostOf(kc.getCurrentCluster()?.server);
}

export function clientOf(kubeconfig: string): KubeClient {
  const kc = new KubeConfig();
  kc.loadFromString(kubeconfig);
  return new KubeClient(kc);
}

/** PhaseWrites from an API server's counts by kube-apiserver's metric (and by field manager when it has them). */
export async function countedWrites(requests: ApiServerRequests): Promise<PhaseWrites> {
  const byResource = await requests.count();
  const byManager = requests.byManagerSinceReset();
  return {
    writes: Object.values(byResource).reduce((a, b) => a + b, 0),
    byResource,
    byManager: byManager.all,
    noopByManager: byManager.noop,
    failedByManager: byManager.failed,
  };
}

/** etcd + kube-apiserver with deploy/ applied, in a temporary folder that `stop` removes. */
export async function startKubeCluster(
  log: (l: string) => void,
): Promise<{ cluster: ManagementCluster; stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'capi-bench-kube-'));
  const cluster = await startManagementCluster({
    dir,
    assetsDir: await kubeAssetsFolder(),
    log: (l) => log(`kube: ${l}`),
  }).catch((e) => {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  });
  return {
    cluster,
    stop: async () => {
      await cluster.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
