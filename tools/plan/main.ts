// CLI: print the simulated rollout of a scenario, e.g.
//   npm run plan -- --replicas 3 --max-surge 1 --max-unavailable 0 --in-place
import { runRolloutSimulation } from '@capi/machineset';
import { parsePlanArgs, USAGE, UsageError } from './args';
import { createSyncWriter, OutputClosedError } from './sync-writer';

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
  // Streamed, with synchronous writes: the log of a large rollout fits neither in one string (it grows with
  // replicas x iterations) nor in process.stdout's write queue.
  const write = createSyncWriter(1);
  let outputClosed = false;
  const result = runRolloutSimulation({
    ...options,
    onLog: (chunk) => {
      try {
        write(chunk);
      } catch (e) {
        // e.g. `npm run plan ... | head`: the rest is not wanted, so the (aborted) run is not an error.
        if (e instanceof OutputClosedError) outputClosed = true;
        throw e;
      }
    },
  });
  if (outputClosed) return 0;
  if (!result.converged) {
    process.stderr.write(`rollout did not complete: ${result.error}\n`);
    return 1;
  }
  return 0;
}

process.exitCode = main(process.argv.slice(2));
