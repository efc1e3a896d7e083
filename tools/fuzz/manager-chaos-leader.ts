// Paused leader: two managers (the real entry point, apps/manager/src/main.ts) with --leader-elect against one API
// server, the in-memory provider and reference updater in a third process (as a provider runs in its own deployment).
// During an in-place rollout the leader gets SIGSTOP for longer than the lease duration, the standby takes the Lease
// over, then the paused one gets SIGCONT. Each manager reaches the API server through its own recording front and
// presents its own client certificate to the extension's recording front, so the servers' side shows who sent what
// and when: the deposed leader must send no write and no hook call once the new leader acquired the Lease, and must
// exit 1 with the leadership-lost record (upstream: controller-runtime's Start returns "leader election lost", main
// exits). The rollout completes under the new leader; a fresh standby replaces the one that exited.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import type { ExtensionConfig } from '@capi/api';
import { renderKubeconfig } from '@capi/apiserver';
import { KubeClient, type Lease } from '@capi/controller-runtime';
import { startEnvtest } from '@capi/envtest';
import { inMemoryCrds } from '@capi/inmemory';
import { LEADER_ELECTION_ID, UPDATER_EXTENSION_CONFIG_NAME } from '@capi/manager';
import { versionPatch } from '../demo/objects';
import {
  benchSpec,
  createBenchCluster,
  machineDeploymentProblems,
  mdMachines,
  patchMachineDeployment,
  waitForMachineDeployment,
} from '../bench/rollout-cluster';
import { chaosVersion, countCompletions } from './manager-chaos';
import { deposedActivity, leadershipLostExitProblems, type DeposedActivity } from './leader-checks';
import { startManagerMain, type ManagerMainProcess } from './support/manager-main-process';
import { startManagerProcess } from './support/manager-process';
import { generateClientCert, startRecordingFront, type RecordingFront } from './support/recording-front';
import { Rng } from './support/rng';

export interface PausedLeaderOptions {
  seed: number;
  /** Pause/takeover cycles, each during its own in-place change. */
  pauses: number;
  replicas?: number;
  /** --leader-elect-lease-duration / -renew-deadline / -retry-period in seconds (default 4 / 3 / 1: a short case). */
  lease?: { durationS: number; renewDeadlineS: number; retryPeriodS: number };
  /** How long the leader stays paused after the standby acquired the Lease (default 1 s). */
  pausedAfterTakeoverMs?: number;
  convergeTimeoutMs?: number;
  log?: (line: string) => void;
  logDir?: string;
}

export interface PauseResult {
  version: string;
  /** From SIGSTOP to the standby holding the Lease. */
  takeoverSeconds: number;
  activity: DeposedActivity;
  /** Why the deposed leader's end is not the leadership-lost exit (empty when it is). */
  exitProblems: string[];
  converged: boolean;
  convergeError?: string;
  missing: string[];
  created: string[];
  completedTwice: [string, number][];
}

export interface PausedLeaderResult {
  pauses: PauseResult[];
  seconds: number;
}

export const pausedLeaderPassed = (r: PausedLeaderResult): boolean =>
  r.pauses.length > 0 &&
  r.pauses.every(
    (p) =>
      p.converged &&
      !p.missing.length &&
      !p.created.length &&
      !p.completedTwice.length &&
      !p.exitProblems.length &&
      !p.activity.writes.length &&
      !p.activity.hookCalls.length,
  );

interface Replica {
  name: string;
  proc: ManagerMainProcess;
  api: RecordingFront;
}

const GATES = '--feature-gates=RuntimeSDK=true,InPlaceUpdates=true';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runPausedLeaderChaos(opts: PausedLeaderOptions): Promise<PausedLeaderResult> {
  const log = opts.log ?? (() => undefined);
  const lease = opts.lease ?? { durationS: 4, renewDeadlineS: 3, retryPeriodS: 1 };
  const dir = mkdtempSync(join(tmpdir(), 'paused-leader-'));
  const rng = new Rng(opts.seed);
  const env = await startEnvtest({ crds: inMemoryCrds() });
  const kc = new KubeConfig();
  kc.loadFromString(env.kubeconfig);
  const client = new KubeClient(kc);
  const fronts: RecordingFront[] = [];
  const replicas: Replica[] = [];
  const ended: Replica[] = [];
  let providerLog = '';
  const provider = await startManagerProcess(join(dir, 'provider'), (d) => (providerLog += d), [
    `--kubeconfig=${env.kubeconfigPath}`,
    '--controllers=',
    '--embedded-provider',
    GATES,
    '--webhook-port=0',
  ]);
  const t0 = Date.now();
  try {
    // Hook calls go through a front that names the caller by its client certificate.
    const ecRef = {
      apiVersion: 'runtime.cluster.x-k8s.io/v1beta2',
      kind: 'ExtensionConfig',
      name: UPDATER_EXTENSION_CONFIG_NAME,
    };
    const ec = await client.get<ExtensionConfig>(ecRef);
    const hooks = await startRecordingFront({
      target: ec.spec.clientConfig.url!,
      targetCaData: ec.spec.clientConfig.caBundle!,
    });
    fronts.push(hooks);
    await client.patch(ecRef, 'merge', { spec: { clientConfig: { url: hooks.url, caBundle: hooks.caData } } });

    let started = 0;
    const startReplica = async (): Promise<Replica> => {
      const name = `manager-${started++}`;
      const api = await startRecordingFront({ target: env.url, targetCaData: env.caData!, label: name });
      fronts.push(api);
      const kubeconfig = join(dir, `${name}.kubeconfig`);
      writeFileSync(kubeconfig, renderKubeconfig({ url: api.url, token: env.token, caData: api.caData, name }), {
        mode: 0o600,
      });
      const cert = await generateClientCert(name);
      writeFileSync(join(dir, `${name}.crt`), cert.cert);
      writeFileSync(join(dir, `${name}.key`), cert.key, { mode: 0o600 });
      const proc = await startManagerMain([
        `--kubeconfig=${kubeconfig}`,
        GATES,
        '--leader-elect',
        '--leader-elect-resource-namespace=default',
        `--leader-elect-lease-duration=${lease.durationS}s`,
        `--leader-elect-renew-deadline=${lease.renewDeadlineS}s`,
        `--leader-elect-retry-period=${lease.retryPeriodS}s`,
        '--kube-api-qps=-1',
        '--webhook-port=0',
        '--metrics-bind-address=0',
        '--health-addr=0',
        `--runtime-extension-client-cert-file=${join(dir, `${name}.crt`)}`,
        `--runtime-extension-client-key-file=${join(dir, `${name}.key`)}`,
      ]);
      const r = { name, proc, api };
      replicas.push(r);
      return r;
    };
    await Promise.all([startReplica(), startReplica()]);
    const holder = async () => {
      const l = await client.tryGet<Lease>({
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        namespace: 'default',
        name: LEADER_ELECTION_ID,
      });
      return { identity: l?.spec?.holderIdentity ?? '', acquireTime: l?.spec?.acquireTime };
    };
    // The replica whose log says it became leader with the Lease's holder identity.
    const leaderOf = (identity: string) =>
      identity ? replicas.find((r) => r.proc.log().includes(`"msg":"${identity} became leader of`)) : undefined;

    const s = benchSpec(opts.replicas ?? 3, 'paused');
    await createBenchCluster(client, s, 1);
    await waitForMachineDeployment(() => client, s, s.version, 180_000, log, 'create');
    const completions = () => countCompletions([...replicas, ...ended].map((r) => r.proc.log()).join('\n'));
    const pauses: PauseResult[] = [];
    for (let n = 1; n <= opts.pauses; n++) {
      const version = chaosVersion(s.version, n);
      const before = (await mdMachines(client, s)).map((m) => m.metadata.name!);
      const completionsBefore = completions();
      await patchMachineDeployment(client, s, versionPatch.machineDeployment(version));
      await sleep(rng.int(300, 2000));
      if ((await machineDeploymentProblems(client, s, version)).length === 0)
        log(`change ${n} (${version}): rolled out before the pause`);
      const { identity } = await holder();
      const leader = leaderOf(identity);
      if (!leader) throw new Error(`no running replica holds the Lease (holder ${JSON.stringify(identity)})`);
      leader.proc.proc.kill('SIGSTOP');
      const stoppedAt = Date.now();
      let taken = await holder();
      while (taken.identity === identity && Date.now() - stoppedAt < 60_000) {
        await sleep(100);
        taken = await holder();
      }
      if (taken.identity === identity) throw new Error(`the Lease stayed with the paused ${leader.name} for 60 s`);
      const takeoverSeconds = (Date.now() - stoppedAt) / 1000;
      const acquiredAt = taken.acquireTime ? Date.parse(taken.acquireTime) : Date.now();
      log(`change ${n} (${version}): ${leader.name} paused, Lease taken over after ${takeoverSeconds.toFixed(1)} s`);
      await sleep(opts.pausedAfterTakeoverMs ?? 1000);
      leader.proc.proc.kill('SIGCONT');
      // The deposed leader must exit on its own; killed after 30 s (a timer cleared when it exits, so it holds no run).
      let killed = false;
      const killer = setTimeout(() => (killed = leader.proc.proc.kill('SIGKILL')), 30_000);
      const exited = await leader.proc.exited.finally(() => clearTimeout(killer));
      const exit = killed ? undefined : exited;
      replicas.splice(replicas.indexOf(leader), 1);
      ended.push(leader);
      const activity = deposedActivity(leader.name, acquiredAt, leader.api.requests, hooks.requests);
      const exitProblems = exit
        ? leadershipLostExitProblems(exit, leader.proc.records())
        : ['still running 30 s after SIGCONT (killed)'];
      // A fresh standby, as a Deployment's replica would be restarted.
      await startReplica();
      let convergeError: string | undefined;
      try {
        await waitForMachineDeployment(() => client, s, version, opts.convergeTimeoutMs ?? 120_000, log, `change ${n}`);
      } catch (e) {
        convergeError = (e as Error).message;
      }
      const after = (await mdMachines(client, s)).map((m) => m.metadata.name!);
      pauses.push({
        version,
        takeoverSeconds,
        activity,
        exitProblems,
        converged: convergeError === undefined,
        convergeError,
        missing: before.filter((m) => !after.includes(m)),
        created: after.filter((m) => !before.includes(m)),
        completedTwice: [...completions()]
          .map(([m, c]): [string, number] => [m, c - (completionsBefore.get(m) ?? 0)])
          .filter(([, c]) => c > 1),
      });
      if (convergeError) break;
    }
    return { pauses, seconds: (Date.now() - t0) / 1000 };
  } finally {
    for (const r of replicas) r.proc.proc.kill('SIGKILL');
    await Promise.all(replicas.map((r) => r.proc.exited));
    provider.client.close();
    provider.proc.kill('SIGKILL');
    await provider.exited;
    for (const f of fronts) await f.close();
    client.close();
    await env.stop();
    if (opts.logDir) {
      writeFileSync(join(opts.logDir, 'provider.log'), providerLog);
      for (const r of [...ended, ...replicas]) writeFileSync(join(opts.logDir, `${r.name}.log`), r.proc.log());
    }
    rmSync(dir, { recursive: true, force: true });
  }
}
