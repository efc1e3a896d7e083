// CLI: print the simulated rollout of a scenario, e.g.
//   npm run plan -- --replicas 3 --max-surge 1 --max-unavailable 0 --in-place
import { runRolloutSimulation } from '@capi/machineset';
import { parsePlanArgs, USAGE, UsageError } from './args';

function main(argv: string[]): number {
  let options;
  try {
    options = parsePlanArgs(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`error: ${e.message}\n${USAGE}\n`);
    return 2;
  }
  if (!options) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  // Streamed: the log of a large rollout does not fit in one string (it grows with replicas x iterations).
  const result = runRolloutSimulation({ ...options, onLog: (chunk) => process.stdout.write(chunk) });
  if (!result.converged) {
    process.stderr.write(`rollout did not complete: ${result.error}\n`);
    return 1;
  }
  return 0;
}

process.exitCode = main(process.argv.slice(2));
