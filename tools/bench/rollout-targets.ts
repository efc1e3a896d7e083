// Where the rollout bench runs the manager (in the bench's process, with the in-memory provider and a zero-latency
// reference updater) and how it counts the management API server's writes:
//   embedded  the embedded API server in this process, writes counted by the server (per field manager, no-ops);
//   kube      etcd + kube-apiserver in their own processes, set up as `npm run kube:up` does (deploy/ applied with
//             kubectl, the manager on its ServiceAccount's kubeconfig), writes counted from kube-apiserver's
//             apiserver_request_total; their peak RSS is reported beside the bench process's.
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { KubeConfig } from '@kubernetes/client-node';
import { ApiServer, RequestMetrics, renderKubeconfig, type ApiServerOptions } from '@capi/apiserver';
import { KubeClient } from '@capi/controller-runtime';
import { WORKLOAD_CLUSTERS, type WorkloadClusters, type WorkloadServer } from '@capi/inmemory';
import {
  applyHeapGrowingPercent,
  EMBEDDED_ENVIRONMENT,
  JsonLogger,
  LOGGER,
  buildManagerModule,
  embeddedCrds,
  loadManagerConfig,
  type EmbeddedEnvironment,
  type EmbeddedProviderOptions,
  type ManagerConfig,
} from '@capi/manager';
import type { Provider } from '@nestjs/common';
import { kubeAssetsFolder, startManagementCluster } from '../kube/management-cluster';
import { KubeApiServerRequests } from './kube-requests';
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
  app: INestApplicationContext;
  config: ManagerConfig;
  /** The bench's own client (admin), not the manager's. */
  client: KubeClient;
  /** Where things run, for the table's title. */
  where: string;
  resetWrites(): Promise<void>;
  countWrites(): Promise<PhaseWrites>;
  /** Reads at the management server by verb and resource (BENCH_READS), up to the last countWrites(). */
  managementReads(): Record<string, number> | undefined;
  workloadServers(): WorkloadServer[];
  otherProcesses: OtherProcesses;
  storage(): NamedStorage[];
  stop(): Promise<void>;
}

/** Zero-latency provider and updater: VMs boot at once, UpdateMachine completes on its second call. */
const ZERO_LATENCY: EmbeddedProviderOptions = {
  provisioningDelayMs: 0,
  updater: { updateDurationSeconds: 0, updateJitterSeconds: 0, retryAfterSeconds: 1 },
};

/**
 * BENCH_WORKLOAD_SERVERS (the manager's --embedded-workload-servers; an explicit manager flag wins): where the
 * in-memory workload clusters' API servers (the simulated remote clusters and their Nodes) run. `child-process`
 * (default): in a process of their own, as a real workload cluster is outside the manager's process; its RSS is
 * reported beside the bench's. `in-process`: in the bench's process, as the embedded default runs them.
 */
const workloadServersFlag = () =>
  `--embedded-workload-servers=${process.env.BENCH_WORKLOAD_SERVERS ?? 'child-process'}`;

/** The manager in this process, as the bench configures it; `flags` (the bench's --arguments) come last and win. */
async function startManager(
  baseFlags: string[],
  flags: string[],
  providers: Provider[] = [],
): Promise<{ app: INestApplicationContext; config: ManagerConfig }> {
  const loaded = loadManagerConfig(
    [
      '--data-dir=',
      '--metrics-bind-address=0',
      '--health-probe-bind-address=0',
      workloadServersFlag(),
      ...baseFlags,
      ...flags,
    ],
    {},
  );
  if (loaded.help) throw new Error('unexpected --help');
  applyHeapGrowingPercent(loaded.config.heapGrowingPercent); // as the manager's main does (the bench is its process)
  const logger = JsonLogger.create({ level: 'error', destination: { write: () => undefined } });
  const root = buildManagerModule(loaded.config, {
    embeddedProvider: ZERO_LATENCY,
    providers: [{ provide: LOGGER, useValue: logger }, ...providers],
  });
  const app = await NestFactory.createApplicationContext(root, { logger: false, abortOnError: false });
  app.useLogger(logger);
  try {
    await app.init();
  } catch (e) {
    await app.close().catch(() => undefined);
    throw e;
  }
  return { app, config: loaded.config };
}

const workloadsOf = (app: INestApplicationContext) => app.get<WorkloadClusters>(WORKLOAD_CLUSTERS, { strict: false });
const workloadStorage = (w: WorkloadClusters): NamedStorage[] =>
  w.list().map((c, i) => ({ name: `workload cluster ${i + 1}`, server: c.server }));
const workloadWhere = (config: ManagerConfig) =>
  config.embeddedWorkloadServers === 'child-process'
    ? "the workload clusters' API servers in a child process"
    : "the workload clusters' API servers in this process too";

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
    if (cacheChars !== undefined && !(cacheChars >= 0))
      throw new Error(
        `BENCH_PARSED_CACHE_CHARS must be a number of chars, got ${process.env.BENCH_PARSED_CACHE_CHARS}`,
      );
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

function clientOf(kubeconfig: string): KubeClient {
  const kc = new KubeConfig();
  kc.loadFromString(kubeconfig);
  return new KubeClient(kc);
}

async function startEmbeddedTarget(flags: string[]): Promise<RolloutTarget> {
  const env = new CountingEmbeddedEnvironment();
  const { app, config } = await startManager([], flags, [{ provide: EMBEDDED_ENVIRONMENT, useValue: env }]);
  const server = env.server!;
  const client = clientOf(server.kubeconfig());
  const workloads = workloadsOf(app);
  return {
    name: 'embedded',
    app,
    config,
    client,
    where: `manager, embedded API server (storage: ${process.env.BENCH_STORAGE ?? 'memory'}) and bench in one process, ${workloadWhere(config)}`,
    resetWrites: async () => server.resetRequests(),
    countWrites: async () => {
      const counts = server.countRequests();
      const byResource: Record<string, number> = {};
      for (const [k, v] of Object.entries(counts.byVerbResource)) if (!/^(get|list|watch) /.test(k)) byResource[k] = v;
      return {
        writes: RequestMetrics.writes(counts),
        byResource,
        byManager: counts.writesByManager,
        noopByManager: counts.noopWritesByManager,
        failedByManager: counts.failedWritesByManager,
      };
    },
    managementReads: () =>
      Object.fromEntries(
        Object.entries(server.countRequests().byVerbResource).filter(([k]) => /^(get|list|watch) /.test(k)),
      ),
    workloadServers: () => workloads.list().map((w) => w.server),
    otherProcesses: () => ({ 'workload servers': workloads.serversPid() }),
    storage: () => [{ name: 'management', server }, ...workloadStorage(workloads)],
    stop: async () => {
      client.close();
      await app.close();
    },
  };
}

/**
 * The manager against etcd + kube-apiserver. Like the embedded default, without a client-side rate limit
 * (--kube-api-qps=-1) so both targets measure the same manager; give --kube-api-qps=100 --kube-api-burst=200 for the deployed default.
 */
async function startKubeTarget(flags: string[], log: (l: string) => void): Promise<RolloutTarget> {
  const dir = mkdtempSync(join(tmpdir(), 'capi-bench-kube-'));
  const cluster = await startManagementCluster({
    dir,
    assetsDir: await kubeAssetsFolder(),
    log: (l) => log(`kube: ${l}`),
  }).catch((e) => {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  });
  let started;
  try {
    started = await startManager(
      [
        `--kubeconfig=${cluster.managerKubeconfig}`,
        '--embedded-provider',
        '--feature-gates=RuntimeSDK=true,InPlaceUpdates=true',
        '--kube-api-qps=-1',
      ],
      flags,
    );
  } catch (e) {
    await cluster.stop();
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  const { app, config } = started;
  const cp = cluster.controlPlane;
  const client = clientOf(renderKubeconfig({ url: cp.url, token: cp.token, caData: cp.caData, name: 'bench' }));
  const writes = new KubeApiServerRequests(cp);
  const workloads = workloadsOf(app);
  return {
    name: 'kube',
    app,
    config,
    client,
    where: `manager (ServiceAccount of deploy/rbac) and bench in one process, etcd and kube-apiserver in theirs, ${workloadWhere(config)}`,
    resetWrites: () => writes.reset(),
    countWrites: async () => {
      const byResource = await writes.count();
      return {
        writes: Object.values(byResource).reduce((a, b) => a + b, 0),
        byResource,
        byManager: {},
        noopByManager: {},
        failedByManager: {},
      };
    },
    managementReads: () => writes.readsSinceReset(),
    workloadServers: () => workloads.list().map((w) => w.server),
    otherProcesses: () => ({
      'workload servers': workloads.serversPid(),
      'kube-apiserver': cp.apiServer.process?.pid,
      etcd: cp.etcd.members[0]?.process.pid,
    }),
    storage: () => workloadStorage(workloads),
    stop: async () => {
      client.close();
      await app.close();
      await cluster.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function startTarget(target: BenchTarget, flags: string[], log: (l: string) => void): Promise<RolloutTarget> {
  return target === 'kube' ? startKubeTarget(flags, log) : startEmbeddedTarget(flags);
}
