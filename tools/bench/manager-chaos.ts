// Chaos 6 as a bench: kill -9 the manager during an in-place rollout N times, print what happened to the Machines.
import { runManagerChaos } from '../fuzz/manager-chaos';
import { renderTable } from './table';

export async function runManagerChaosBench(args: string[]): Promise<number> {
  const kills = args[0] === undefined ? 3 : Number(args[0]);
  const seed = args[1] === undefined ? 7 : Number(args[1]);
  const replicas = args[2] === undefined ? 3 : Number(args[2]);
  if (!Number.isInteger(kills) || kills < 0 || ![seed, replicas].every((v) => Number.isInteger(v) && v >= 1)) throw new Error(`usage: manager-chaos [kills=3 (0: control run)] [seed=7] [replicas=3], got ${args.join(' ')}`);
  const r = await runManagerChaos({ seed, kills, replicas, log: (l) => process.stderr.write(`${l}\n`), logDir: process.env.CHAOS_LOG_DIR });
  process.stdout.write(`manager kill -9 x${kills} during an in-place rollout of ${replicas} Machines (seed ${seed}, kills after ${r.killDelaysMs.join(', ')} ms)\n`);
  process.stdout.write(renderTable(['converged', 'seconds', 'Machines lost/replaced', 'Machines created', 'UpdateMachine completed twice'], [
    [String(r.converged), r.seconds, r.missing.length, r.created.length, r.completedTwice.length],
  ]));
  if (r.convergeError) process.stdout.write(`${r.convergeError}\n`);
  for (const m of r.missing) process.stdout.write(`  replaced or lost: ${m}\n`);
  for (const [m, n] of r.completedTwice) process.stdout.write(`  ${m}: UpdateMachine completed ${n} times\n`);
  return r.converged && r.missing.length === 0 && r.created.length === 0 && r.completedTwice.length === 0 ? 0 : 1;
}
