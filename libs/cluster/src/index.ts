export { type ClusterDescendants, type ClusterScope, emptyDescendants } from './scope';
export { type ClusterPhase, type ClusterStatusInputs, type ClusterStatusResult, computeClusterStatus } from './status';
