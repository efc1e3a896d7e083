// The distributed engine under faults: etcd as 3 members on loopback behind kube-apiserver, the manager (a child
// process, manager-child.ts) rolling a MachineDeployment of N Machines in place, and mid-rollout kill -9 of an
// etcd follower (restarted after a few seconds), then of the leader (restarted too). Checks that the rollout converges
// with every Machine kept (same UID), at the new version and UpToDate, no UpdateMachine completed twice (the manager's
// log, as tools/fuzz/manager-chaos counts) and each Machine's update performed exactly once (the updater's host); reports how long writes stalled around each fault (a
// ConfigMap write probe every 250 ms) and what the manager saw (failed requests, reconcile errors).
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import type { Machine } from '@capi/api';
import { KubeClient } from '@capi/controller-runtime';
import { startEnvtest, type Envtest } from '@capi/envtest';
import { freePort, type EtcdCluster, type EtcdMember } from '@capi/kube-control-plane';
import { embeddedCrds } from '@capi/manager';
import { machineProblems } from '../demo/progress';
import { versionPatch } from '../demo/objects';
import {
  benchSpec,
  createBenchCluster,
  machineDeploymentProblems,
  mdMachines,
  patchMachineDeployment,
} from './rollout-cluster';
import { BenchManagerProcess } from './manager-process';
import { renderTable, type Cell } from './table';
import { windowFigures, WriteProbe } from './write-probe';
import { stopOnInterrupt } from './interrupt';

/** Faults fire once this share of the Machines is updated: the follower first, then the leader. */
const FOLLOWER_KILL_AT = 0.15;
const LEADER_KILL_AT = 0.5;
/** How long a killed member stays down before it is restarted (ETCD_CHAOS_DOWN_SECONDS). */
const downMs = () => Number(process.env.ETCD_CHAOS_DOWN_SECONDS ?? 5) * 1000;
const POLL_MS = 2500;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface FaultEvent {
  name: string;
  at: number;
  updated: number;
}

class Failure extends Error {}

/** Counts of a Map<string, number> after − before, only the keys that moved. */
function delta(after: Map<string, number>, before: Map<string, number>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [k, v] of after) if (v - (before.get(k) ?? 0) !== 0) out.set(k, v - (before.get(k) ?? 0));
  return out;
}

/** An error message with object names and numbers elided, so the same failure on different Machines groups together. */
export const errorKind = (msg: string): string =>
  msg
    .replace(/\b[a-z0-9][\w.-]*\/[a-z0-9][\w.-]*\b/g, '<obj>')
    .replace(/\d+(\.\d+)?/g, 'N')
    .slice(0, 160);

function topKinds(messages: string[], n: number): [string, number][] {
  const counts = new Map<string, number>();
  for (const m of messages) counts.set(errorKind(m), (counts.get(errorKind(m)) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1]).slice(0, n);
}

export async function runEtcdChaosBench(allArgs: string[]): Promise<number> {
  // Arguments starting with -- are manager flags, e.g. --kube-api-qps=50 (upstream's 100/200 apply otherwise).
  const managerFlags = allArgs.filter((a) => a.startsWith('--'));
  const args = allArgs.filter((a) => !a.startsWith('--'));
  const machines = Number(args[0] ?? 300);
  const timeoutMs = Number(args[1] ?? 1800) * 1000;
  if (!Number.isInteger(machines) || machines < 4 || !(timeoutMs > 0) || !(downMs() >= 0)) {
    process.stderr.write(
      `error: usage: etcd-chaos [machines=300 (>= 4)] [timeoutSeconds=1800] [--manager-flag...], got ${allArgs.join(' ')}\n`,
    );
    return 2;
  }
  const t0 = Date.now();
  const log = (l: string) => process.stderr.write(`[${((Date.now() - t0) / 1000).toFixed(1).padStart(6)} s] ${l}\n`);
  let env: Envtest | undefined;
  let manager: BenchManagerProcess | undefined;
  let probe: WriteProbe | undefined;
  let client: KubeClient | undefined;
  const cleanup = async () => {
    await probe?.stop();
    client?.close();
    await manager?.stop();
    await env?.stop();
  };
  // Ctrl-C or a kill must not leave etcd, kube-apiserver or the manager behind.
  const interrupt = stopOnInterrupt(cleanup, log);
  const killManager = () => manager?.killNow();
  process.once('exit', killManager);
  try {
    const r = await run(machines, timeoutMs, managerFlags, log, {
      setEnv: (e) => (env = e),
      setManager: (m) => (manager = m),
      setProbe: (p) => (probe = p),
      setClient: (c) => (client = c),
    });
    process.stdout.write(r);
    return 0;
  } catch (e) {
    if (interrupt.interrupted) return interrupt.exiting();
    const msg = e instanceof Failure ? e.message : ((e as Error).stack ?? String(e));
    process.stderr.write(`error: ${msg.replace(/\n/g, ' | ')}\n`);
    return 1;
  } finally {
    await cleanup().catch((e) => log(`cleanup: ${(e as Error).message}`));
    interrupt.off();
    process.off('exit', killManager);
  }
}

interface Holders {
  setEnv(e: Envtest): void;
  setManager(m: BenchManagerProcess): void;
  setProbe(p: WriteProbe): void;
  setClient(c: KubeClient): void;
}

async function run(
  n: number,
  timeoutMs: number,
  managerFlags: string[],
  log: (l: string) => void,
  hold: Holders,
): Promise<string> {
  const s = benchSpec(n, 'etcd-chaos');
  const version = s.upgradeVersion;
  const maxUnavailable = Math.max(1, Math.floor(n / 10));
  const env = await startEnvtest({
    target: 'kube',
    installProjectCrds: false,
    crds: embeddedCrds(),
    kube: { etcdMembers: 3 },
  });
  hold.setEnv(env);
  const etcd = env.kube!.etcd;
  log(
    `etcd ${etcd.members.map((m) => m.name).join(', ')} + kube-apiserver ${env.url} up with the CRDs (data and logs: ${env.kube!.dir})`,
  );
  const flags = [
    `--kubeconfig=${env.kubeconfigPath}`,
    '--health-probe-bind-address=0',
    '--feature-gates=RuntimeSDK=true,InPlaceUpdates=true',
    '--embedded-provider',
    // Workload servers in the manager's process: one child less on a machine the bench shares with etcd and kube-apiserver.
    '--embedded-workload-servers=in-process',
    ...managerFlags,
  ];
  const managerLog = join(env.kube!.dir, 'manager.log');
  const manager = await BenchManagerProcess.start(flags, await freePort(), 120_000, managerLog);
  hold.setManager(manager);
  log(`manager started (child process ${flags.slice(1).join(' ')}; log ${managerLog})`);
  const kc = new KubeConfig();
  kc.loadFromString(env.kubeconfig);
  const client = new KubeClient(kc);
  hold.setClient(client);
  let readErrors = 0;

  /** Machines, updated ones (at `want` with no problem), and whether the MachineDeployment is settled there. */
  const observe = async (want: string) => {
    try {
      const ms = await mdMachines(client, s);
      const updated = ms.filter((m) => machineProblems(m, want).length === 0).length;
      const settled =
        updated === n && ms.length === n && (await machineDeploymentProblems(client, s, want)).length === 0;
      return { machines: ms, updated, settled, error: undefined };
    } catch (e) {
      readErrors++;
      return { machines: [] as Machine[], updated: -1, settled: false, error: (e as Error).message };
    }
  };
  const etcdLine = async () => {
    const health = await Promise.all(
      etcd.members.map(
        async (m) => `${m.name} ${m.process.alive ? ((await etcd.healthy(m)) ? 'healthy' : 'unhealthy') : 'down'}`,
      ),
    );
    return `etcd: ${health.join(', ')}; leader ${(await etcd.leader())?.name ?? 'none'}`;
  };
  let lastLog = 0;
  /** Polls until `done` holds for the observed state; progress every 5 s; Failure after the deadline. */
  const waitFor = async (
    what: string,
    want: string,
    deadline: number,
    done: (o: Awaited<ReturnType<typeof observe>>) => boolean,
  ) => {
    for (;;) {
      if (!manager.alive) throw new Failure(manager.describeExit());
      const o = await observe(want);
      if (done(o)) return o;
      if (Date.now() - lastLog >= 5000) {
        lastLog = Date.now();
        log(
          `${what}: ${o.error ? `reading Machines failed: ${o.error}` : `${o.updated}/${n} at ${want} and ready`}; ${await etcdLine()}`,
        );
      }
      if (Date.now() > deadline)
        throw new Failure(
          `${what}: not done within ${timeoutMs / 1000} s (${o.updated}/${n} Machines at ${want} and ready; ${await etcdLine()})`,
        );
      await sleep(POLL_MS);
    }
  };

  // 1. The MachineDeployment, provisioned.
  await createBenchCluster(client, s, maxUnavailable);
  const createStart = Date.now();
  const created = await waitFor('provisioning', s.version, Date.now() + timeoutMs, (o) => o.settled);
  const provisionSeconds = (Date.now() - createStart) / 1000;
  const uids = new Map(created.machines.map((m) => [m.metadata.uid!, m.metadata.name!]));
  log(`${n} Machines provisioned in ${provisionSeconds.toFixed(1)} s; UIDs recorded`);

  // 2. The in-place rollout, with the faults.
  const completionsBefore = manager.completions();
  const orphansBefore = manager.orphanCleanups();
  const freshBefore = new Map(manager.freshUpdates);
  const repeatedBefore = new Map(manager.repeatedUpdates);
  const metricsBefore = await manager.metrics();
  const errorsBefore = manager.errors.length;
  const warningsBefore = manager.warnings.length;
  const probe = new WriteProbe(env);
  hold.setProbe(probe);
  await probe.start();
  await sleep(3000); // a baseline of the probe before any fault
  const leaders: [string, string][] = [['before the faults', (await etcd.leader())?.name ?? 'none']];
  const events: FaultEvent[] = [];
  const rolloutStart = Date.now();
  const deadline = rolloutStart + timeoutMs;
  await patchMachineDeployment(client, s, versionPatch.machineDeployment(version));
  log(`rollout to ${version} started (maxUnavailable ${maxUnavailable})`);
  let updated = 0;
  const event = (name: string, now = updated) => {
    events.push({ name, at: Date.now(), updated: now });
    log(`${name} (${now}/${n} updated)`);
  };
  const reach = async (share: number, fault: string) => {
    const o = await waitFor('rollout', version, deadline, (x) => x.settled || x.updated >= Math.ceil(share * n));
    if (o.settled)
      throw new Failure(`the rollout converged before the ${fault} could land mid-rollout: raise the Machines`);
    updated = o.updated;
  };
  const outage = async (member: EtcdMember, role: string) => {
    await member.process.kill();
    event(`kill -9 ${role} ${member.name}`);
    if (role === 'leader') {
      const elected = await waitForLeader(etcd, Date.now() + 30_000);
      leaders.push([
        `after the leader's kill (${((Date.now() - events.at(-1)!.at) / 1000).toFixed(1)} s to observe)`,
        elected?.name ?? 'none within 30 s',
      ]);
    }
    await sleep(downMs());
    const restarting = Date.now();
    await etcd.restart(member);
    event(`restart ${member.name} (healthy after ${((Date.now() - restarting) / 1000).toFixed(1)} s)`);
  };

  await reach(FOLLOWER_KILL_AT, 'follower kill');
  const leader = await etcd.leader();
  if (!leader) throw new Failure('no etcd leader before the follower kill');
  await outage(
    etcd.members.find((m) => m !== leader)!,
    'follower',
  );
  leaders.push(['after the follower restart', (await etcd.leader())?.name ?? 'none']);
  await reach(LEADER_KILL_AT, 'leader kill');
  const current = await etcd.leader();
  if (!current) throw new Failure('no etcd leader before the leader kill');
  await outage(current, 'leader');
  const done = await waitFor('rollout', version, deadline, (o) => o.settled);
  const convergeSeconds = (Date.now() - rolloutStart) / 1000;
  event('converged', done.updated);
  await sleep(2000); // the probe's tail after the last fault
  await probe.stop();
  leaders.push(['at the end', (await etcd.leader())?.name ?? 'none']);

  // 3. Invariants.
  const after = new Set(done.machines.map((m) => m.metadata.uid!));
  const lost = [...uids].filter(([uid]) => !after.has(uid)).map(([, name]) => name);
  const createdDuring = done.machines.filter((m) => !uids.has(m.metadata.uid!)).map((m) => m.metadata.name!);
  const notUpdated = done.machines.flatMap((m) => machineProblems(m, version));
  const completions = delta(manager.completions(), completionsBefore);
  const orphans = delta(manager.orphanCleanups(), orphansBefore);
  const fresh = delta(manager.freshUpdates, freshBefore);
  const repeated = delta(manager.repeatedUpdates, repeatedBefore);
  const keys = done.machines.map((m) => `${m.metadata.namespace}/${m.metadata.name}`);
  const notOnce = (c: Map<string, number>) =>
    keys.filter((k) => (c.get(k) ?? 0) !== 1).map((k) => `${k}: ${c.get(k) ?? 0}`);
  const twice = [...completions].filter(([, c]) => c > 1).map(([k, c]) => `${k}: ${c}`);
  // Not logged: a completion write was committed but its answer lost (the log line follows the writes); the next
  // reconcile found the Machine done, or finished it as an orphan (its update-in-progress annotation gone, the hook still
  // pending) without calling the hook again. Not a failure: the updater's count says each update was performed once.
  const unlogged = keys.filter((k) => !completions.get(k));
  const asOrphans = unlogged.filter((k) => orphans.get(k)).length;
  const metricsAfter = await manager.metrics();
  const failedRequests = [...delta(metricsAfter.requestsByCode, metricsBefore.requestsByCode)].filter(
    ([code]) => !/^2/.test(code),
  );
  const reconcileErrors = [...delta(metricsAfter.reconcileErrors, metricsBefore.reconcileErrors)];
  const errorLines = manager.errors.slice(errorsBefore);
  const warnLines = manager.warnings.slice(warningsBefore);

  // 4. Figures.
  const rel = (t: number) => ((t - rolloutStart) / 1000).toFixed(1);
  const windows: Cell[][] = [];
  const first = events[0];
  const baseline = windowFigures(probe.samples, probe.samples[0]?.start ?? rolloutStart, first.at);
  const ms = (v: number | undefined) => (v === undefined ? 'none' : v);
  windows.push([
    'before the faults (baseline)',
    `${rel(probe.samples[0]?.start ?? rolloutStart)}..${rel(first.at)}`,
    '-',
    baseline.writes,
    baseline.failed,
    ms(baseline.recoveryMs),
    baseline.longestGapMs,
    baseline.slowestMs,
    baseline.errors[0]?.[0] ?? '',
  ]);
  for (let i = 0; i < events.length - 1; i++) {
    const f = windowFigures(probe.samples, events[i].at, events[i + 1].at);
    windows.push([
      events[i].name,
      `${rel(events[i].at)}..${rel(events[i + 1].at)}`,
      `${events[i].updated}/${n}`,
      f.writes,
      f.failed,
      ms(f.recoveryMs),
      f.longestGapMs,
      f.slowestMs,
      f.errors
        .map(([m, c]) => `${c}x ${m}`)
        .join('; ')
        .slice(0, 140),
    ]);
  }
  const sum = (m: Iterable<[string, number]>) => [...m].reduce((a, [, v]) => a + v, 0);
  const out = [
    `etcd-chaos: ${n} Machines (+1 control plane Machine), maxSurge 0, maxUnavailable ${maxUnavailable}, zero-latency in-memory provider and updater; etcd v3.6.14 x3 + kube-apiserver v1.36.3 on loopback; manager in a child process${managerFlags.length ? ` (flags: ${managerFlags.join(' ')})` : ''}; members down ${downMs() / 1000} s each`,
    `provisioned in ${provisionSeconds.toFixed(1)} s; in-place rollout converged in ${convergeSeconds.toFixed(1)} s through 2 etcd kills`,
    '',
    renderTable(['etcd leader', 'member'], leaders),
    'probe writes (a ConfigMap merge-patch sent every 250 ms, answered or not; 10 s timeout) per window, from each event to the next; seconds from the rollout start;',
    'first ack: from the event to the first acknowledged write sent after it; longest gap: longest time without any acknowledged write',
    renderTable(
      [
        'window from',
        'seconds',
        'updated',
        'writes',
        'failed',
        'first ack ms',
        'longest gap ms',
        'slowest ms',
        'errors',
      ],
      windows,
    ),
    renderTable(
      ['check', 'result'],
      [
        ['Machines lost or replaced (UID gone)', lost.length],
        ['Machines created during the rollout', createdDuring.length],
        [`Machines not at ${version} and UpToDate/Ready`, new Set(notUpdated.map((p) => p.split(':')[0])).size],
        ['UpdateMachine completed twice for a Machine (manager log)', twice.length],
        [
          'Machines whose completion the manager did not log (an answer lost), of which finished as orphans',
          `${unlogged.length}, ${asOrphans}`,
        ],
        ['host updates performed by the updater, Machines not exactly once', notOnce(fresh).length],
        ['idempotent "completed" answers repeated by the updater (total)', sum(repeated)],
      ],
    ),
    renderTable(
      ['what the manager saw during the rollout', 'count'],
      [
        ...failedRequests.map(([code, c]): Cell[] => [
          `requests answered ${code === '0' ? 'with a connection error' : `HTTP ${code}`}`,
          c,
        ]),
        ...reconcileErrors.map(([c, v]): Cell[] => [`reconcile errors: ${c}`, v]),
        ['error log lines', errorLines.length],
        ['warning log lines', warnLines.length],
        ['bench client reads that failed (progress polls)', readErrors],
      ],
    ),
    errorLines.length + warnLines.length
      ? `manager error and warning lines by kind (object names and numbers elided)\n${renderTable(
          ['count', 'level', 'message'],
          [
            ...topKinds(
              errorLines.map((e) => e.msg),
              8,
            ).map(([m, c]): Cell[] => [c, 'error', m]),
            ...topKinds(
              warnLines.map((e) => e.msg),
              8,
            ).map(([m, c]): Cell[] => [c, 'warn', m]),
          ],
        )}`
      : '',
  ].join('\n');
  const problems = [
    lost.length && `${lost.length} Machines lost or replaced (e.g. ${lost.slice(0, 3).join(', ')})`,
    createdDuring.length &&
      `${createdDuring.length} Machines created during the rollout (e.g. ${createdDuring.slice(0, 3).join(', ')})`,
    notUpdated.length && `Machines not updated: ${notUpdated.slice(0, 3).join('; ')}`,
    twice.length && `UpdateMachine completed twice (manager log): ${twice.slice(0, 3).join(', ')}`,
    notOnce(fresh).length && `host updates not exactly once (updater): ${notOnce(fresh).slice(0, 3).join(', ')}`,
  ].filter(Boolean);
  if (problems.length) {
    process.stdout.write(out);
    throw new Failure(problems.join('; '));
  }
  return out;
}

async function waitForLeader(etcd: EtcdCluster, deadline: number): Promise<EtcdMember | undefined> {
  while (Date.now() < deadline) {
    const l = await etcd.leader();
    if (l) return l;
    await sleep(100);
  }
  return undefined;
}
