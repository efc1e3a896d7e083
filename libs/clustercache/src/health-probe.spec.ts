import {
  connectionRetryWaitMs,
  decideAfterConnect,
  decideAfterProbe,
  DEFAULT_CONNECTION_CREATION_RETRY_INTERVAL_MS,
  DEFAULT_HEALTH_PROBE_FAILURE_THRESHOLD,
  DEFAULT_HEALTH_PROBE_INTERVAL_MS,
  DEFAULT_HEALTH_PROBE_OPTIONS,
  DEFAULT_HEALTH_PROBE_TIMEOUT_MS,
  type HealthCheckingState,
} from './health-probe';

const opts = { failureThreshold: 3, connectionCreationRetryIntervalMs: 30_000 };
const fresh: HealthCheckingState = { lastProbeTime: 0, lastProbeSuccessTime: 0, consecutiveFailures: 0 };

describe('health probe decisions', () => {
  it("defaults to upstream's ClusterCache settings", () => {
    expect(DEFAULT_HEALTH_PROBE_INTERVAL_MS).toBe(10_000);
    expect(DEFAULT_HEALTH_PROBE_TIMEOUT_MS).toBe(5_000);
    expect(DEFAULT_HEALTH_PROBE_FAILURE_THRESHOLD).toBe(5);
    expect(DEFAULT_CONNECTION_CREATION_RETRY_INTERVAL_MS).toBe(30_000);
    expect(DEFAULT_HEALTH_PROBE_OPTIONS).toEqual({
      intervalMs: 10_000,
      timeoutMs: 5_000,
      failureThreshold: 5,
      connectionCreationRetryIntervalMs: 30_000,
    });
  });

  it('a success is healthy and resets the failure count', () => {
    const { state, decision } = decideAfterProbe({ ...fresh, consecutiveFailures: 2 }, 'success', 100, opts);
    expect(decision).toEqual({ action: 'healthy' });
    expect(state).toEqual({ lastProbeTime: 100, lastProbeSuccessTime: 100, consecutiveFailures: 0 });
  });

  it('counts failures below the threshold, keeping the last success time', () => {
    const one = decideAfterProbe(fresh, 'failure', 100, opts);
    expect(one.decision).toEqual({ action: 'countFailure' });
    expect(one.state).toEqual({ lastProbeTime: 100, lastProbeSuccessTime: 0, consecutiveFailures: 1 });
    const two = decideAfterProbe(one.state, 'failure', 200, opts);
    expect(two.decision).toEqual({ action: 'countFailure' });
    expect(two.state.consecutiveFailures).toBe(2);
  });

  it('disconnects at the threshold, to retry after the connection-creation retry interval', () => {
    let state = fresh;
    const decisions: string[] = [];
    for (let i = 1; i <= 3; i++) {
      const out = decideAfterProbe(state, 'failure', i * 100, opts);
      state = out.state;
      decisions.push(out.decision.action);
      if (out.decision.action === 'disconnect') expect(out.decision.retryAfterMs).toBe(30_000);
    }
    expect(decisions).toEqual(['countFailure', 'countFailure', 'disconnect']);
    expect(state.consecutiveFailures).toBe(3);
  });

  it('a success between failures starts the count again', () => {
    let state = decideAfterProbe(fresh, 'failure', 1, opts).state;
    state = decideAfterProbe(state, 'failure', 2, opts).state;
    state = decideAfterProbe(state, 'success', 3, opts).state;
    const out = decideAfterProbe(state, 'failure', 4, opts);
    expect(out.decision).toEqual({ action: 'countFailure' });
    expect(out.state.consecutiveFailures).toBe(1);
  });

  it('Unauthorized disconnects on the first failure and may reconnect at once (kubeconfig rotated)', () => {
    const out = decideAfterProbe(fresh, 'unauthorized', 100, opts);
    expect(out.decision).toEqual({ action: 'disconnect', retryAfterMs: 0 });
    expect(out.state.consecutiveFailures).toBe(1);
  });

  it('a created connection counts as a successful probe; a failed one as a failure with a retry time', () => {
    const failed = { lastProbeTime: 5, lastProbeSuccessTime: 1, consecutiveFailures: 3 };
    expect(decideAfterConnect(failed, true, 100, opts)).toEqual({
      state: { lastProbeTime: 100, lastProbeSuccessTime: 100, consecutiveFailures: 0 },
    });
    expect(decideAfterConnect(failed, false, 100, opts)).toEqual({
      state: { lastProbeTime: 100, lastProbeSuccessTime: 1, consecutiveFailures: 4 },
      retryAt: 30_100,
    });
  });

  it('waits for the retry time before connecting again', () => {
    expect(connectionRetryWaitMs(undefined, 100)).toBe(0);
    expect(connectionRetryWaitMs(30_100, 100)).toBe(30_000);
    expect(connectionRetryWaitMs(30_100, 30_100)).toBe(0);
    expect(connectionRetryWaitMs(30_100, 40_000)).toBe(0);
  });
});
