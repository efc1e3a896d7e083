// @capi/predicates: event predicates over the Cluster API kinds for controller watches (upstream util/predicates).
export {
  clusterControlPlaneInitialized,
  clusterInfrastructureProvisioned,
  clusterPausedTransitions,
  clusterPausedTransitionsOrInfrastructureProvisioned,
} from './cluster';
