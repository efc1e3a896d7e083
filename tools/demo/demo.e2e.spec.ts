// End to end: the demo flow, headless, against the embedded manager in-process (the same module `npm start` runs:
// embedded API server with CRDs, KCP / MachineSet / MachineDeployment / Machine / MHC / ExtensionConfig controllers,
// in-memory provider, reference updater registered by its ExtensionConfig), with short provisioning and update times.
// The same flow on a real management cluster, with the manager in its own process: demo.kube.spec.ts.
import { startEmbeddedManager, FAST_TIMINGS, type EmbeddedManager } from './embedded';
import { DemoRun, type DemoResult } from './flow';
import { itChecksTheDemoOutcome } from './testing/outcome';

// Three phases of about 20-50 s each on two shared cores.
jest.setTimeout(240_000);

let manager: EmbeddedManager | undefined;
const lines: string[] = [];
let result: DemoResult;

beforeAll(async () => {
  manager = await startEmbeddedManager({ provider: FAST_TIMINGS });
  // keep: the checks read the demo's Machines first; the shared checks' last step deletes the Cluster.
  const run = new DemoRun({
    client: manager.client,
    out: (l) => lines.push(l),
    phaseTimeoutMs: 150_000,
    pollMs: 250,
    keep: true,
  });
  try {
    result = await run.run();
  } catch (e) {
    // Show what the Machines did before the phase timed out.
    process.stdout.write(lines.join('\n') + '\n');
    throw e;
  }
});

afterAll(async () => {
  await manager?.stop();
});

describe('demo flow (embedded manager, in-process)', () => {
  itChecksTheDemoOutcome(() => ({ result, client: manager!.client, lines }));
});
