// The manager's client-side rate limits (--kube-api-qps/-burst, --clustercache-client-qps/-burst) and their defaults.
import type { ClientRateLimit } from '@capi/controller-runtime';

/** Upstream's --kube-api-qps / --kube-api-burst defaults (core/main.go). */
export const DEFAULT_KUBE_API_RATE_LIMIT: ClientRateLimit = { qps: 100, burst: 200 };
/** Upstream's --clustercache-client-qps / --clustercache-client-burst defaults (core/main.go). */
export const DEFAULT_CLUSTER_CACHE_CLIENT_RATE_LIMIT: ClientRateLimit = { qps: 20, burst: 30 };

/**
 * A client-side limit: upstream's default when deployed; off in the embedded default, whose API servers run in the
 * same process on loopback (no shared cluster to protect; the limit would only slow the demo and benchmarks).
 */
export function clientRateLimit(
  embedded: boolean,
  qps: number | undefined,
  burst: number | undefined,
  defaults: ClientRateLimit,
): ClientRateLimit | undefined {
  const q = qps ?? (embedded ? -1 : defaults.qps);
  if (q < 0) return undefined;
  return { qps: q, burst: burst ?? defaults.burst };
}
