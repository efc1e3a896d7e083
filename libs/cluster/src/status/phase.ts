// status.phase, as upstream setPhase in core/reconcilers/cluster/cluster_controller_status.go.
import type { Cluster } from '@capi/api';

export type ClusterPhase = 'Pending' | 'Provisioning' | 'Provisioned' | 'Deleting' | 'Failed' | 'Unknown';

type Ref = { apiGroup?: string; kind?: string; name?: string } | undefined;

/** Upstream ContractVersionedObjectReference.IsDefined. */
export const isRefDefined = (r: Ref): boolean => !!(r && (r.kind || r.name || r.apiGroup));

/** Upstream ClusterStatus.GetTypedPhase: an unexpected value reads as Unknown. */
export function typedPhase(phase: string | undefined): ClusterPhase {
  switch (phase) {
    case 'Pending':
    case 'Provisioning':
    case 'Provisioned':
    case 'Deleting':
    case 'Failed':
      return phase;
    default:
      return 'Unknown';
  }
}

/** The phase after this reconcile and whether it changed (the reconciler then emits "Cluster <name> is <phase>"). */
export function computePhase(cluster: Cluster): { phase: ClusterPhase; changed: boolean } {
  const before = typedPhase(cluster.status?.phase);
  let phase = cluster.status?.phase ? before : 'Pending';
  if (isRefDefined(cluster.spec.infrastructureRef) || isRefDefined(cluster.spec.controlPlaneRef))
    phase = 'Provisioning';
  const endpoint = cluster.spec.controlPlaneEndpoint;
  // APIEndpoint.IsValid: a host and a port.
  if (cluster.status?.initialization?.infrastructureProvisioned === true && !!endpoint?.host && !!endpoint.port) {
    phase = 'Provisioned';
  }
  if (cluster.metadata.deletionTimestamp) phase = 'Deleting';
  return { phase, changed: phase !== before };
}
