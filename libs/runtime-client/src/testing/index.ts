// Test helpers of @capi/runtime-client for other libs' specs (`@capi/runtime-client/testing`); not part of the
// package's production API.
export { createTestRuntimeClient, type TestRuntimeClient } from './test-runtime-client';
export { FakeKubeClient } from './fake-kube-client';
