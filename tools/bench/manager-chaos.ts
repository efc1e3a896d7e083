// Manager chaos as a bench: kill -9 the manager N times at random moments of in-place rollouts, print per change what
// happened to the Machines. Exit 1 on any lost/replaced Machine, double completion or rollout that did not converge.
import { chaosPassed, runManagerChaos } from '../fuzz/manager-chaos';
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
  return chaosPassed(r) && killed === kills ? 0 : 1;
}
