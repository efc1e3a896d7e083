// Test helpers of @capi/controller-runtime for other libs' specs (`@capi/controller-runtime/testing`); not part of
// the package's production API.
export { testReconcileContext, type LoggedLine, type TestReconcileContextOptions } from './reconcile-context';
export { listOnlyClient } from './list-only-client';
export { reconcileWhenCached } from './cache-caught-up';

/**
 * Controller suites run with Cluster API's reconciler rate limiting on, as the manager does, at a tenth of its 1 s
 * interval: as upstream's MachineHealthCheck suite shortens that controller's (overrideRateLimit), so a flow of many
 * reconciles of one object does not wait a second between each.
 */
export const TEST_RATE_LIMITING = { reconcilerRateLimiting: true, rateLimitIntervalMs: 100 } as const;
