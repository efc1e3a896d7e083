// kill -9 of the manager at random moments of in-place rollouts, restarted on the same data directory each time:
// every rollout converges, no Machine is lost or replaced, no Machine completes UpdateMachine twice for one change.
//
// It found a real bug: after a restart the reference updater listens on a new port, and the registry warmed up
// without it, so the MachineSet in-place check answered "no CanUpdateMachineSet extensions registered" and the
// MachineDeployment replaced 2 of 3 Machines (seed 7). Fixed in libs/runtime-client: warm-up now waits until every
// ExtensionConfig is discovered, as upstream does. 200 kills: `npm run bench -- manager-chaos`. Logs of each manager
// run: CHAOS_LOG_DIR=<dir>. CAPI_MANAGER_CHAOS_KILLS=<n> changes the number of kills here.
import { chaosPassed, chaosVersion, runManagerChaos } from './manager-chaos';
import { badExtensionConfigProblems } from './manager-chaos-extension';
import { pausedLeaderPassed, runPausedLeaderChaos } from './manager-chaos-leader';

jest.setTimeout(900_000);

const KILLS = Number(process.env.CAPI_MANAGER_CHAOS_KILLS ?? 20);

describe('manager kill -9 during in-place rollouts', () => {
  it(`converges with every Machine kept in place and one UpdateMachine completion per change, through ${KILLS} kills`, async () => {
    const r = await runManagerChaos({
      seed: 7,
      kills: KILLS,
      log: (l) => process.stderr.write(`[manager-chaos] ${l}\n`),
      logDir: process.env.CHAOS_LOG_DIR,
      badExtensionConfig: true,
    });
    const summary = r.changes.map((c) => ({
      version: c.version,
      converged: c.converged,
      error: c.convergeError,
      missing: c.missing,
      created: c.created,
      completedTwice: c.completedTwice,
    }));
    expect(summary).toEqual(
      r.changes.map((c) => ({
        version: c.version,
        converged: true,
        error: undefined,
        missing: [],
        created: [],
        completedTwice: [],
      })),
    );
    // Every kill landed while a rollout was in flight.
    expect(r.changes.reduce((n, c) => n + c.kills, 0)).toBe(KILLS);
    // (and the one after the bad ExtensionConfigs were deleted)
    expect(r.killDelaysMs).toHaveLength(KILLS + r.badExtensionConfig!.afterDelete.kills);
    expect(r.badExtensionConfig!.afterDelete.kills).toBe(1);
    // Then bad ExtensionConfigs during one more change (manager-chaos-extension.ts): the http:// one refused by the
    // webhook, the unreachable one reported not discovered, the API server up, both changes converged.
    const bad = r.badExtensionConfig!;
    expect(bad.plainHttpCode).toBe(422);
    expect(bad.plainHttpMessage).toContain("'https' is the only allowed URL scheme");
    expect(bad.unreachableDiscovered).toMatchObject({
      status: 'False',
      message: expect.stringContaining('ECONNREFUSED'),
    });
    expect(badExtensionConfigProblems(bad)).toEqual([]);
    expect(chaosPassed(r)).toBe(true);
  });
});

// Two managers with --leader-elect; the leader SIGSTOPped past the lease duration mid-rollout, the standby takes
// over, the paused one resumes (manager-chaos-leader.ts). More cycles: npm run bench -- manager-chaos-leader.
describe('paused leader during an in-place rollout', () => {
  it('the deposed leader sends no write and no hook call after the takeover and exits 1; the rollout completes', async () => {
    const r = await runPausedLeaderChaos({
      seed: 7,
      pauses: 1,
      log: (l) => process.stderr.write(`[paused-leader] ${l}\n`),
      logDir: process.env.CHAOS_LOG_DIR,
    });
    expect(r.pauses).toHaveLength(1);
    const p = r.pauses[0];
    expect({ writes: p.activity.writes, hookCalls: p.activity.hookCalls }).toEqual({ writes: [], hookCalls: [] });
    expect(p.exitProblems).toEqual([]);
    expect({ converged: p.converged, error: p.convergeError, missing: p.missing, created: p.created }).toEqual({
      converged: true,
      error: undefined,
      missing: [],
      created: [],
    });
    expect(p.completedTwice).toEqual([]);
    expect(pausedLeaderPassed(r)).toBe(true);
  });
});

describe('chaosVersion', () => {
  it('numbers the in-place changes as patch versions after the initial one', () => {
    expect([1, 2, 10].map((n) => chaosVersion('v1.31.0', n))).toEqual(['v1.31.1', 'v1.31.2', 'v1.31.10']);
    expect(() => chaosVersion('1.31', 1)).toThrow(/unexpected version/);
  });
});
