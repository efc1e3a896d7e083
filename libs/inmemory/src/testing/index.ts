// Test helpers of @capi/inmemory for specs (`@capi/inmemory/testing`): the provider on an envtest and the Clusters and
// Machines it serves. They need @capi/envtest and @nestjs/testing (optional peer dependencies of the package).
export * from './fixtures';
