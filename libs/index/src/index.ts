// @capi/index: the informer cache indexes of the Cluster API kinds that the controllers list through.
export { CLUSTER_NAME_FIELD, controlledBy, indexMachineHealthChecks, indexMachineSets, indexMachines } from './indexes';
