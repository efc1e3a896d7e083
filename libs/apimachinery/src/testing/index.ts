// Test helpers of @capi/apimachinery (import from '@capi/apimachinery/testing'; never from production code).
export { FakeClock } from './fake-clock';
