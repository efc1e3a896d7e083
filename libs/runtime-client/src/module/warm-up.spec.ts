import { registryReadiness, runWarmUp, WarmUpDiscoveryError, WarmUpTimeoutError } from './warm-up';

/** Fake time: sleep advances the clock instead of waiting. */
function fakeTime() {
  let t = 0;
  const sleeps: number[] = [];
  return { now: () => t, sleep: async (ms: number) => void (sleeps.push(ms), (t += ms)), sleeps };
}

describe('runWarmUp', () => {
  it('returns after the first successful attempt, passing per-extension errors through', async () => {
    const time = fakeTime();
    const err = new Error('discovery of x failed');
    const outcome = await runWarmUp(async () => ({ errors: [err] }), time);
    expect(outcome).toEqual({ ok: true, attempts: 1, extensionErrors: [err] });
    expect(time.sleeps).toEqual([]);
  });

  it('retries a failing list every interval until it succeeds', async () => {
    const time = fakeTime();
    let calls = 0;
    const outcome = await runWarmUp(
      async () => {
        if (++calls < 3) throw new Error('connection refused');
        return { errors: [] };
      },
      { ...time, retryIntervalMs: 2_000, timeoutMs: 60_000 },
    );
    expect(outcome).toEqual({ ok: true, attempts: 3, extensionErrors: [] });
    expect(time.sleeps).toEqual([2_000, 2_000]);
  });

  it('gives up when the next attempt would pass the timeout (upstream defaults: 2 s for 60 s)', async () => {
    const time = fakeTime();
    const outcome = await runWarmUp(async () => Promise.reject(new Error('forbidden')), time);
    expect(outcome.ok).toBe(false);
    expect(outcome.attempts).toBe(30);
    if (!outcome.ok)
      expect(outcome.error.message).toBe('ExtensionConfig registry warm-up timed out after 60000ms: forbidden');
  });

  it('requires every extension to be discovered: a discovery failing for the whole budget is a failure naming them (upstream)', async () => {
    const time = fakeTime();
    const partials: boolean[] = [];
    const err = new Error('failed to discover extension "x": connection refused');
    const outcome = await runWarmUp(
      async (partial) => {
        partials.push(partial);
        // As the reconciler's warmUp({ requireAll: !partial }) does.
        if (!partial) throw new WarmUpDiscoveryError(['updater-a', 'updater-b'], [err, err]);
        return { errors: [err] };
      },
      { ...time, retryIntervalMs: 2_000, timeoutMs: 10_000 },
    );
    expect(partials).toEqual([false, false, false, false, false]);
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) {
      expect(outcome.error).toBeInstanceOf(WarmUpTimeoutError);
      expect((outcome.error as WarmUpTimeoutError).extensionConfigs).toEqual(['updater-a', 'updater-b']);
      expect(outcome.error.message).toMatch(
        /^ExtensionConfig registry warm-up timed out after 10000ms: discovery failed for 2 ExtensionConfig\(s\) \(updater-a, updater-b\): /,
      );
    }
  });

  it('an extension that comes up within the budget is waited for, not skipped', async () => {
    const time = fakeTime();
    let calls = 0;
    const outcome = await runWarmUp(
      async (partial) => {
        if (++calls < 4 && !partial) throw new WarmUpDiscoveryError(['late'], [new Error('down')]);
        return { errors: [] };
      },
      { ...time, retryIntervalMs: 2_000, timeoutMs: 60_000 },
    );
    expect(outcome).toEqual({ ok: true, attempts: 4, extensionErrors: [] });
  });

  it('allowPartial (deliberate, off by default) settles for what it has on the last attempt', async () => {
    const time = fakeTime();
    const partials: boolean[] = [];
    const err = new Error('discovery of x failed');
    const outcome = await runWarmUp(
      async (partial) => {
        partials.push(partial);
        if (!partial) throw err;
        return { errors: [err] };
      },
      { ...time, retryIntervalMs: 2_000, timeoutMs: 10_000, allowPartial: true },
    );
    expect(outcome).toEqual({ ok: true, attempts: 5, extensionErrors: [err] });
    expect(partials).toEqual([false, false, false, false, true]);
  });

  it('allowPartial still settles when a slow attempt used up the time budget', async () => {
    const time = fakeTime();
    const partials: boolean[] = [];
    const err = new Error('discovery of x failed');
    const outcome = await runWarmUp(
      async (partial) => {
        partials.push(partial);
        await time.sleep(9_000); // the first attempt alone takes most of the 10 s budget
        if (!partial) throw err;
        return { errors: [err] };
      },
      { ...time, retryIntervalMs: 2_000, timeoutMs: 10_000, allowPartial: true },
    );
    expect(outcome).toEqual({ ok: true, attempts: 2, extensionErrors: [err] });
    expect(partials).toEqual([false, true]);
  });

  it('stops retrying once cancelled', async () => {
    const time = fakeTime();
    let cancelled = false;
    const outcome = await runWarmUp(
      async () => {
        cancelled = true;
        throw new Error('down');
      },
      { ...time, cancelled: () => cancelled },
    );
    expect(outcome).toMatchObject({ ok: false, attempts: 1 });
  });
});

describe('registryReadiness', () => {
  const registry = (ready: boolean) => ({ isReady: () => ready });

  it('is ready on a standby replica (only the leader warms up)', () => {
    expect(registryReadiness({ registry: registry(false), isLeader: () => false })).toBe(true);
  });

  it('the leader is ready once the registry is warmed up', () => {
    expect(registryReadiness({ registry: registry(false), isLeader: () => true })).toBe(
      'ExtensionConfig registry is not warmed up yet',
    );
    expect(registryReadiness({ registry: registry(true), isLeader: () => true })).toBe(true);
  });

  it('reports why the warm-up gave up', () => {
    const failure = new Error('ExtensionConfig registry warm-up timed out after 60000ms: forbidden');
    expect(registryReadiness({ registry: registry(false), isLeader: () => true, failure: () => failure })).toBe(
      failure.message,
    );
  });
});
