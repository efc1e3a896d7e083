// The workload cluster health probe's decisions, as upstream's ClusterCache makes them (controllers/clustercache:
// cluster_accessor.go HealthCheck / Connect, cluster_cache.go Reconcile and buildClusterAccessorConfig): a probe
// that fails FailureThreshold times in a row disconnects the cluster (its informers stop) and the connection is
// created again no sooner than ConnectionCreationRetryInterval later; an Unauthorized answer disconnects at once and
// may reconnect at once (the kubeconfig was probably rotated). Pure: the cache runs the probes and applies these.

/** Upstream HealthProbe.Interval: how often a connected cluster is probed. */
export const DEFAULT_HEALTH_PROBE_INTERVAL_MS = 10_000;
/** Upstream HealthProbe.Timeout: a probe without an answer by then failed. */
export const DEFAULT_HEALTH_PROBE_TIMEOUT_MS = 5_000;
/** Upstream HealthProbe.FailureThreshold: consecutive failures that disconnect the cluster. */
export const DEFAULT_HEALTH_PROBE_FAILURE_THRESHOLD = 5;
/** Upstream ConnectionCreationRetryInterval: the least time between a disconnect or failed connection and a retry. */
export const DEFAULT_CONNECTION_CREATION_RETRY_INTERVAL_MS = 30_000;

export interface HealthProbeOptions {
  intervalMs: number;
  timeoutMs: number;
  failureThreshold: number;
  connectionCreationRetryIntervalMs: number;
}

export const DEFAULT_HEALTH_PROBE_OPTIONS: Readonly<HealthProbeOptions> = {
  intervalMs: DEFAULT_HEALTH_PROBE_INTERVAL_MS,
  timeoutMs: DEFAULT_HEALTH_PROBE_TIMEOUT_MS,
  failureThreshold: DEFAULT_HEALTH_PROBE_FAILURE_THRESHOLD,
  connectionCreationRetryIntervalMs: DEFAULT_CONNECTION_CREATION_RETRY_INTERVAL_MS,
};

/** Upstream HealthCheckingState; times in ms since the epoch. Creating a connection counts as a probe. */
export interface HealthCheckingState {
  lastProbeTime?: number;
  lastProbeSuccessTime?: number;
  consecutiveFailures: number;
}

/** How one probe went: answered, failed (error or timeout), or answered 401 Unauthorized. */
export type ProbeResult = 'success' | 'failure' | 'unauthorized';

export type ProbeDecision =
  | { action: 'healthy' }
  | { action: 'countFailure' }
  /** Stop the cluster's informers; connect again no sooner than `retryAfterMs` from now. */
  | { action: 'disconnect'; retryAfterMs: number };

/** The state after a probe of a connected cluster and what to do about it. */
export function decideAfterProbe(
  state: HealthCheckingState,
  result: ProbeResult,
  now: number,
  opts: Pick<HealthProbeOptions, 'failureThreshold' | 'connectionCreationRetryIntervalMs'>,
): { state: HealthCheckingState; decision: ProbeDecision } {
  if (result === 'success')
    return {
      state: { lastProbeTime: now, lastProbeSuccessTime: now, consecutiveFailures: 0 },
      decision: { action: 'healthy' },
    };
  const next = { ...state, lastProbeTime: now, consecutiveFailures: state.consecutiveFailures + 1 };
  if (result === 'unauthorized') return { state: next, decision: { action: 'disconnect', retryAfterMs: 0 } };
  if (next.consecutiveFailures >= opts.failureThreshold)
    return { state: next, decision: { action: 'disconnect', retryAfterMs: opts.connectionCreationRetryIntervalMs } };
  return { state: next, decision: { action: 'countFailure' } };
}

/**
 * The state after an attempt to (re)create a connection: success resets the failures (both probe times are now),
 * failure counts as a failed probe and the next attempt waits `connectionCreationRetryIntervalMs`.
 */
export function decideAfterConnect(
  state: HealthCheckingState,
  connected: boolean,
  now: number,
  opts: Pick<HealthProbeOptions, 'connectionCreationRetryIntervalMs'>,
): { state: HealthCheckingState; retryAt?: number } {
  if (connected) return { state: { lastProbeTime: now, lastProbeSuccessTime: now, consecutiveFailures: 0 } };
  return {
    state: { ...state, lastProbeTime: now, consecutiveFailures: state.consecutiveFailures + 1 },
    retryAt: now + opts.connectionCreationRetryIntervalMs,
  };
}

/** Milliseconds until a disconnected cluster may be connected again (0: now); upstream shouldRequeue. */
export function connectionRetryWaitMs(retryAt: number | undefined, now: number): number {
  return retryAt === undefined ? 0 : Math.max(0, retryAt - now);
}
