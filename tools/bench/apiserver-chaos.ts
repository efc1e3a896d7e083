// Benchmark/soak 5: the API server chaos loop with more iterations, printing per-iteration counts.
import { runApiserverChaos } from '../fuzz/apiserver-chaos';
import { renderTable } from './table';

export async function runApiserverChaosBench(args: string[]): Promise<number> {
  const iterations = args[0] === undefined ? 20 : Number(args[0]);
  const seed = args[1] === undefined ? Date.now() % 100000 : Number(args[1]);
  if (!Number.isInteger(iterations) || iterations < 1 || !Number.isInteger(seed))
    throw new Error(`usage: apiserver-chaos [iterations] [seed], got ${args.join(' ')}`);
  process.stdout.write(`kill -9 / restart of the SQLite API server during 4 concurrent writers, seed ${seed}\n`);
  const results = await runApiserverChaos({ seed, iterations, log: (l) => process.stderr.write(`${l}\n`) });
  process.stdout.write(
    renderTable(
      ['iteration', 'acked writes', 'in flight at kill', 'kill after ms', 'restart ms', 'lost/unexpected'],
      results.map((r) => [
        r.iteration,
        r.ackedWrites,
        r.inFlightAtKill,
        r.killAfterMs,
        r.restartMs,
        r.violations.length,
      ]),
    ),
  );
  const violations = results.flatMap((r) => r.violations.map((v) => `iteration ${r.iteration}: ${v}`));
  const acked = results.reduce((n, r) => n + r.ackedWrites, 0);
  process.stdout.write(
    `${acked} acknowledged writes over ${iterations} kills, ${violations.length} lost or unexpected\n`,
  );
  for (const v of violations) process.stdout.write(`  ${v}\n`);
  return violations.length === 0 ? 0 : 1;
}
