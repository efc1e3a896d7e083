// BENCH_MANAGER=process (the default): the rollout bench's manager in a process of its own (manager-child.ts: the
// manager built as main.ts builds it, on --kubeconfig, with the in-memory provider and the zero-latency updater), so
// its CPU time and peak RSS are its own; on embedded the standalone API server (libs/apiserver/src/main.ts) in another
// process, its writes read from its GET /metrics as kube-apiserver's are. The bench's process then holds only the
// bench: its client, its polls and its samplers.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderKubeconfig } from '@capi/apiserver';
import type { KubeClient } from '@capi/controller-runtime';
import { freePort, getWithToken, type KubeApiServerEndpoint } from '@capi/kube-control-plane';
import { embeddedCrds } from '@capi/manager';
import { startServerProcess } from '../fuzz/support/apiserver-process';
import { ApiServerRequests } from './apiserver-requests';
import { BenchManagerProcess } from './manager-process';
import { childPids } from './process-stats';
import {
  benchStorage,
  clientOf,
  countedWrites,
  EXTERNAL_SERVER_FLAGS,
  hostOfKubeconfig,
  startKubeCluster,
  workloadServersFlag,
  workloadWhere,
  type BenchTarget,
  type RolloutTarget,
} from './rollout-targets';

const READY_TIMEOUT_MS = 120_000;

/** GET /metrics of an API server with its admin token. */
const metricsOf = (endpoint: KubeApiServerEndpoint, what: string) => async (): Promise<string> => {
  const { status, body } = await getWithToken(endpoint, '/metrics');
  if (status !== 200) throw new Error(`${what} /metrics answered ${status}`);
  return body;
};

/** The manager against `kubeconfigPath` in a child process, its log in `dir`; the bench's flags come last and win. */
async function startManagerProcess(kubeconfigPath: string, flags: string[], dir: string): Promise<BenchManagerProcess> {
  return BenchManagerProcess.start(
    [
      `--kubeconfig=${kubeconfigPath}`,
      '--data-dir=',
      '--health-probe-bind-address=0',
      // Error lines only (as the in-process layout logs): the manager's cost without the bench's log volume.
      '--log-level=error',
      workloadServersFlag(),
      ...EXTERNAL_SERVER_FLAGS,
      ...flags,
    ],
    await freePort(),
    READY_TIMEOUT_MS,
    join(dir, 'manager.log'),
  );
}

/** What the process layout reports of the manager: its metrics, and it and its child (workload servers) as processes. */
function managerProcessParts(manager: BenchManagerProcess) {
  const flagged = process.env.BENCH_WORKLOAD_SERVERS ?? 'child-process';
  return {
    managerMetrics: () => manager.metricsText(),
    processes: () => {
      const pid = manager.pid;
      return { manager: pid, 'workload servers': pid === undefined ? undefined : childPids(pid)[0] };
    },
    workloadWhere: workloadWhere(flagged, "in the manager's process"),
  };
}

function processTarget(
  name: BenchTarget,
  client: KubeClient,
  where: string,
  managementHost: string,
  requests: ApiServerRequests,
  manager: BenchManagerProcess,
  others: () => Record<string, number | undefined>,
  stop: () => Promise<void>,
): RolloutTarget {
  const parts = managerProcessParts(manager);
  return {
    name,
    client,
    where: `${where}, ${parts.workloadWhere}`,
    selfName: 'bench',
    managerMetrics: async () => {
      if (!manager.alive) throw new Error(manager.describeExit());
      return parts.managerMetrics();
    },
    managementHost,
    resetWrites: () => requests.reset(),
    countWrites: () => countedWrites(requests),
    managementReads: () => requests.readsSinceReset(),
    workloadServers: () => [],
    otherProcesses: () => ({ ...parts.processes(), ...others() }),
    storage: () => [],
    informers: () => ({}),
    stop: async () => {
      client.close();
      await manager.stop();
      await stop();
    },
  };
}

/**
 * The standalone API server (in-memory storage, or BENCH_STORAGE=sqlite its SQLite file) with the project's and the
 * in-memory provider's CRDs installed through its API, and the manager on its admin kubeconfig. Against a server of
 * its own the manager serves no webhooks (as on kube: no certificate), where the in-process embedded default does.
 */
export async function startEmbeddedProcesses(flags: string[]): Promise<RolloutTarget> {
  const dir = mkdtempSync(join(tmpdir(), 'capi-bench-processes-'));
  const cleanup: (() => Promise<void>)[] = [async () => rmSync(dir, { recursive: true, force: true })];
  const stopAll = async () => {
    for (const c of cleanup.reverse()) await c().catch(() => undefined);
  };
  try {
    const storage = benchStorage();
    const server = await startServerProcess(
      join(dir, 'apiserver'),
      READY_TIMEOUT_MS,
      storage === 'memory' ? ['--memory'] : [],
    );
    cleanup.push(() => server.stop());
    const endpoint = {
      url: server.endpoint.url,
      token: server.endpoint.token ?? '',
      caData: server.endpoint.caData ?? '',
    };
    const kubeconfig = renderKubeconfig({ ...endpoint, name: 'bench' });
    const client = clientOf(kubeconfig);
    cleanup.push(async () => client.close());
    for (const crd of embeddedCrds()) await client.create(crd as never);
    const managerKubeconfig = join(dir, 'manager.kubeconfig');
    writeFileSync(managerKubeconfig, kubeconfig, { mode: 0o600 });
    const manager = await startManagerProcess(managerKubeconfig, flags, dir);
    cleanup.push(() => manager.stop());
    return processTarget(
      'embedded',
      client,
      `manager, standalone API server (storage: ${storage}) and bench each in a process of its own`,
      hostOfKubeconfig(kubeconfig),
      new ApiServerRequests(metricsOf(endpoint, 'the API server')),
      manager,
      () => ({ 'API server': server.proc.pid }),
      stopAll,
    );
  } catch (e) {
    await stopAll();
    throw e;
  }
}

/** etcd + kube-apiserver set up as `npm run kube:up` does, and the manager on its ServiceAccount's kubeconfig. */
export async function startKubeProcesses(flags: string[], log: (l: string) => void): Promise<RolloutTarget> {
  const kube = await startKubeCluster(log);
  const dir = mkdtempSync(join(tmpdir(), 'capi-bench-manager-'));
  const stopKube = async () => {
    await kube.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  let manager: BenchManagerProcess;
  try {
    manager = await startManagerProcess(kube.cluster.managerKubeconfig, flags, dir);
  } catch (e) {
    await stopKube();
    throw e;
  }
  const cp = kube.cluster.controlPlane;
  const kubeconfig = renderKubeconfig({ url: cp.url, token: cp.token, caData: cp.caData, name: 'bench' });
  return processTarget(
    'kube',
    clientOf(kubeconfig),
    'manager (ServiceAccount of deploy/rbac), bench, etcd and kube-apiserver each in a process of its own',
    hostOfKubeconfig(kubeconfig),
    new ApiServerRequests(metricsOf(cp, 'kube-apiserver')),
    manager,
    () => ({ 'kube-apiserver': cp.apiServer.process?.pid, etcd: cp.etcd.members[0]?.process.pid }),
    stopKube,
  );
}
