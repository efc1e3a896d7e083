export { type ClusterDescendants, type ClusterScope, emptyDescendants } from './scope';
export {
  type ClusterPhase,
  type ClusterStatusInputs,
  type ClusterStatusResult,
  computeClusterStatus,
  type HealthCheckingState,
} from './status';
