// Predicates over Cluster update events for the controllers' Cluster watches, as upstream's
// util/predicates/cluster_predicates.go: each passes one transition of an update and no create or delete, so a
// Cluster's status writes (several per rollout step) do not re-reconcile everything that watches Clusters.
import { isTrue, type Condition } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import type { Predicate } from '@capi/controller-runtime';

interface ClusterFields {
  spec?: { paused?: boolean };
  status?: {
    initialization?: { infrastructureProvisioned?: boolean; controlPlaneInitialized?: boolean };
    conditions?: Condition[];
  };
}

const fields = (o: KubeObject): ClusterFields => o as ClusterFields;

/** A predicate that passes only the update events for which `passes(old, new)` holds. */
function onUpdateOnly(passes: (oldCluster: ClusterFields, newCluster: ClusterFields) => boolean): Predicate {
  return {
    create: () => false,
    delete: () => false,
    update: (o, n) => passes(fields(o), fields(n)),
  };
}

const paused = (c: ClusterFields): boolean => c.spec?.paused === true;
const infrastructureProvisioned = (c: ClusterFields): boolean =>
  c.status?.initialization?.infrastructureProvisioned === true;
const controlPlaneInitialized = (c: ClusterFields): boolean => isTrue(c.status?.conditions, 'ControlPlaneInitialized');

/** spec.paused flipped either way (upstream ClusterPausedTransitions). */
export const clusterPausedTransitions: Predicate = onUpdateOnly((o, n) => paused(o) !== paused(n));

/** status.initialization.infrastructureProvisioned became true (upstream ClusterUpdateInfraProvisioned). */
export const clusterInfrastructureProvisioned: Predicate = onUpdateOnly(
  (o, n) => !infrastructureProvisioned(o) && infrastructureProvisioned(n),
);

/** The ControlPlaneInitialized condition became True (upstream ClusterControlPlaneInitialized). */
export const clusterControlPlaneInitialized: Predicate = onUpdateOnly(
  (o, n) => !controlPlaneInitialized(o) && controlPlaneInitialized(n),
);

/** Upstream ClusterPausedTransitionsOrInfrastructureProvisioned. */
export const clusterPausedTransitionsOrInfrastructureProvisioned: Predicate = onUpdateOnly(
  (o, n) => paused(o) !== paused(n) || (!infrastructureProvisioned(o) && infrastructureProvisioned(n)),
);
