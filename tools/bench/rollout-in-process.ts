// BENCH_MANAGER=in-process: the rollout bench's manager in the bench's own process (with the in-memory provider and
// the zero-latency reference updater), so V8's profilers see it and its workload clusters' servers can be asked for
// their reads; on embedded the embedded API server runs there too, counting writes itself.
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplicationContext, Provider } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Registry } from 'prom-client';
import { ApiServer, RequestMetrics, renderKubeconfig, type ApiServerOptions } from '@capi/apiserver';
import { CACHE, hostOf, METRICS_REGISTRY, type InformerCache } from '@capi/controller-runtime';
import { getWithToken } from '@capi/kube-control-plane';
import { WORKLOAD_CLUSTERS, type WorkloadClusters } from '@capi/inmemory';
import {
  applyHeapGrowingPercent,
  EMBEDDED_ENVIRONMENT,
  JsonLogger,
  LOGGER,
  buildManagerModule,
  embeddedCrds,
  loadManagerConfig,
  type EmbeddedEnvironment,
  type ManagerConfig,
} from '@capi/manager';
import { ApiServerRequests } from './apiserver-requests';
import { ZERO_LATENCY } from './manager-child';
import type { NamedStorage } from './process-stats';
import {
  benchStorage,
  clientOf,
  countedWrites,
  EXTERNAL_SERVER_FLAGS,
  hostOfKubeconfig,
  startKubeCluster,
  workloadServersFlag,
  workloadWhere,
  type RolloutTarget,
} from './rollout-targets';

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

/** What every in-process target reads of the manager in this process. */
function managerInThisProcess(app: INestApplicationContext, config: ManagerConfig) {
  const workloads = app.get<WorkloadClusters>(WORKLOAD_CLUSTERS, { strict: false });
  const registry = app.get<Registry>(METRICS_REGISTRY, { strict: false });
  return {
    managerMetrics: () => registry.metrics(),
    workloadServers: () => workloads.list().map((w) => w.server),
    workloadStorage: (): NamedStorage[] =>
      workloads.list().map((c, i) => ({ name: `workload cluster ${i + 1}`, server: c.server })),
    workloadsPid: () => workloads.serversPid(),
    informers: () => app.get<InformerCache>(CACHE, { strict: false }).informerSizes(),
    workloadWhere: workloadWhere(config.embeddedWorkloadServers, 'in this process too'),
  };
}

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
    if (benchStorage() === 'memory') return { type: 'memory' };
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

export async function startEmbeddedInProcess(flags: string[]): Promise<RolloutTarget> {
  const env = new CountingEmbeddedEnvironment();
  const { app, config } = await startManager([], flags, [{ provide: EMBEDDED_ENVIRONMENT, useValue: env }]);
  const server = env.server!;
  const kubeconfig = server.kubeconfig();
  const client = clientOf(kubeconfig);
  const manager = managerInThisProcess(app, config);
  return {
    name: 'embedded',
    client,
    where: `manager, embedded API server (storage: ${benchStorage()}) and bench in one process, ${manager.workloadWhere}`,
    selfName: 'manager + API server + bench',
    managerMetrics: manager.managerMetrics,
    managementHost: hostOfKubeconfig(kubeconfig),
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
    workloadServers: manager.workloadServers,
    otherProcesses: () => ({ 'workload servers': manager.workloadsPid() }),
    storage: () => [{ name: 'management', server }, ...manager.workloadStorage()],
    informers: manager.informers,
    stop: async () => {
      client.close();
      await app.close();
    },
  };
}

export async function startKubeInProcess(flags: string[], log: (l: string) => void): Promise<RolloutTarget> {
  const kube = await startKubeCluster(log);
  let started;
  try {
    started = await startManager([`--kubeconfig=${kube.cluster.managerKubeconfig}`, ...EXTERNAL_SERVER_FLAGS], flags);
  } catch (e) {
    await kube.stop();
    throw e;
  }
  const { app, config } = started;
  const cp = kube.cluster.controlPlane;
  const client = clientOf(renderKubeconfig({ url: cp.url, token: cp.token, caData: cp.caData, name: 'bench' }));
  const requests = new ApiServerRequests(async () => {
    const { status, body } = await getWithToken(cp, '/metrics');
    if (status !== 200) throw new Error(`kube-apiserver /metrics answered ${status}`);
    return body;
  });
  const manager = managerInThisProcess(app, config);
  return {
    name: 'kube',
    client,
    where: `manager (ServiceAccount of deploy/rbac) and bench in one process, etcd and kube-apiserver in theirs, ${manager.workloadWhere}`,
    selfName: 'manager + bench',
    managerMetrics: manager.managerMetrics,
    managementHost: hostOf(cp.url),
    resetWrites: () => requests.reset(),
    countWrites: () => countedWrites(requests),
    managementReads: () => requests.readsSinceReset(),
    workloadServers: manager.workloadServers,
    otherProcesses: () => ({
      'workload servers': manager.workloadsPid(),
      'kube-apiserver': cp.apiServer.process?.pid,
      etcd: cp.etcd.members[0]?.process.pid,
    }),
    storage: manager.workloadStorage,
    informers: manager.informers,
    stop: async () => {
      client.close();
      await app.close();
      await kube.stop();
    },
  };
}
