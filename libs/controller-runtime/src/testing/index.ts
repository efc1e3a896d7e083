// Test helpers of @capi/controller-runtime for other libs' specs (`@capi/controller-runtime/testing`); not part of
// the package's production API.
export { testReconcileContext, type LoggedLine, type TestReconcileContextOptions } from './reconcile-context';
export { listOnlyClient } from './list-only-client';
