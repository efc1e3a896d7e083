// Test helpers of @capi/mhc for specs (`@capi/mhc/testing`): the MachineHealthCheck controller (and optionally the
// Machine controller) on an envtest, with workload clusters and Nodes. They need @capi/envtest, @capi/machine and
// @nestjs/testing (optional peer dependencies of the package).
export * from './harness';
