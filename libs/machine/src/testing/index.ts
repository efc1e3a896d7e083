// Test helpers of @capi/machine for specs (`@capi/machine/testing`): the Machine controller on an envtest, the objects
// a Machine needs, and an update extension that misbehaves on purpose. They need @capi/envtest and @nestjs/testing
// (optional peer dependencies of the package).
export * from './fixtures';
export * from './harness';
export * from './faulty-extension';
