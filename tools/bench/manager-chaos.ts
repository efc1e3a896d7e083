// Manager chaos as a bench: kill -9 the manager N times at random moments of in-place rollouts, print per change what
// happened to the Machines. Exit 1 on any lost/replaced Machine, double completion or rollout that did not converge.
import { chaosPassed, runManagerChaos } from '../fuzz/manager-chaos';
import { badExtensionConfigProblems } from '../fuzz/manager-chaos-extension';
import { pausedLeaderPassed, runPausedLeaderChaos } from '../fuzz/manager-chaos-leader';
import { renderTable } from './table';

export async function runManagerChaosBench(args: string[]): Promise<number> {
  const kills = args[0] === undefined ? 200 : Number(args[0]);
  const seed = args[1] === undefined ? 7 : Number(args[1]);
  const replicas = args[2] === undefined ? 3 : Number(args[2]);
  if (!Number.isInteger(kills) || kills < 1 || ![seed, replicas].every((v) => Number.isInteger(v) && v >= 1))
    throw new Error(`usage: manager-chaos [kills=200] [seed=7] [replicas=3], got ${args.join(' ')}`);
  const r = await runManagerChaos({
    seed,
    kills,
    replicas,
    log: (l) => process.stderr.write(`${l}\n`),
    logDir: process.env.CHAOS_LOG_DIR,
    badExtensionConfig: true,
  });
  const killed = r.changes.reduce((n, c) => n + c.kills, 0);
  process.stdout.write(
    `manager kill -9 x${killed} during ${r.changes.length} in-place rollouts of ${replicas} Machines (seed ${seed}), ${r.seconds.toFixed(0)} s\n`,
  );
  process.stdout.write(
    renderTable(
      [
        'change',
        'kills',
        'converged',
        'seconds',
        'Machines lost/replaced',
        'Machines created',
        'UpdateMachine completed twice',
      ],
      r.changes.map((c) => [
        c.version,
        c.kills,
        String(c.converged),
        c.seconds,
        c.missing.length,
        c.created.length,
        c.completedTwice.length,
      ]),
    ),
  );
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  process.stdout.write(
    `kill delays ${Math.min(...r.killDelaysMs)}-${Math.max(...r.killDelaysMs)} ms; restart to ready: mean ${mean(r.restartSeconds).toFixed(2)} s, max ${Math.max(0, ...r.restartSeconds).toFixed(2)} s\n`,
  );
  for (const c of r.changes) {
    if (c.convergeError) process.stdout.write(`${c.version}: ${c.convergeError}\n`);
    for (const m of c.missing) process.stdout.write(`  ${c.version}: replaced or lost: ${m}\n`);
    for (const [m, n] of c.completedTwice)
      process.stdout.write(`  ${c.version}: ${m}: UpdateMachine completed ${n} times\n`);
  }
  const bad = r.badExtensionConfig;
  if (bad) {
    process.stdout.write(
      `bad ExtensionConfigs during ${bad.during.version}: http:// answered ${bad.plainHttpCode}; unreachable one ` +
        `Discovered=${bad.unreachableDiscovered?.status} (${bad.unreachableDiscovered?.reason}); API server up: ` +
        `${bad.apiServerUp}; after deleting them ${bad.afterDelete.version} with ${bad.afterDelete.kills} kill: ` +
        `converged ${bad.afterDelete.converged}\n`,
    );
    for (const p of badExtensionConfigProblems(bad)) process.stdout.write(`  bad ExtensionConfig: ${p}\n`);
  }
  return chaosPassed(r) && killed === kills ? 0 : 1;
}

/** Paused leader: SIGSTOP the leader of two --leader-elect managers mid-rollout, N times (manager-chaos-leader.ts). */
export async function runPausedLeaderBench(args: string[]): Promise<number> {
  const [pauses, seed, replicas] = [args[0] ?? '5', args[1] ?? '7', args[2] ?? '3'].map(Number);
  if (![pauses, seed, replicas].every((v) => Number.isInteger(v) && v >= 1))
    throw new Error(`usage: manager-chaos-leader [pauses=5] [seed=7] [replicas=3], got ${args.join(' ')}`);
  const r = await runPausedLeaderChaos({
    seed,
    pauses,
    replicas,
    log: (l) => process.stderr.write(`${l}\n`),
    logDir: process.env.CHAOS_LOG_DIR,
  });
  process.stdout.write(
    `paused leader x${r.pauses.length} during in-place rollouts of ${replicas} Machines (seed ${seed}), ${r.seconds.toFixed(0)} s\n`,
  );
  process.stdout.write(
    renderTable(
      [
        'change',
        'takeover s',
        'writes after takeover',
        'hook calls after takeover',
        'Events after takeover',
        'exit',
        'converged',
        'Machines lost/replaced',
        'UpdateMachine completed twice',
      ],
      r.pauses.map((p) => [
        p.version,
        p.takeoverSeconds,
        p.activity.writes.length,
        p.activity.hookCalls.length,
        p.activity.events.length,
        p.exitProblems.length ? 'wrong' : 'leadership lost, 1',
        String(p.converged),
        p.missing.length + p.created.length,
        p.completedTwice.length,
      ]),
    ),
  );
  for (const p of r.pauses) {
    for (const w of [...p.activity.writes, ...p.activity.hookCalls])
      process.stdout.write(`  ${p.version}: after the takeover: ${w.method} ${w.path}\n`);
    for (const e of p.exitProblems) process.stdout.write(`  ${p.version}: deposed leader's exit: ${e}\n`);
    if (p.convergeError) process.stdout.write(`  ${p.version}: ${p.convergeError}\n`);
  }
  return pausedLeaderPassed(r) && r.pauses.length === pauses ? 0 : 1;
}
