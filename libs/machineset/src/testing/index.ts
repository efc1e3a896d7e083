// Test helpers of @capi/machineset for other libs' specs (`@capi/machineset/testing`): builders of Machines,
// MachineSets and MachineDeployments at a fixed time.
export { NOW, clock, machine, machineDeployment, machineSet } from './fixtures';
