// Placeholder until the status port lands: only status.phase (upstream cluster_controller_status.go setPhase) and
// status.initialization (already set on the scope's Cluster by the phases). Replaced by the full port.
import type { Cluster } from '@capi/api';
import type { HealthCheckingState } from '@capi/clustercache';
import type { ClusterScope } from '../scope';

type ClusterStatus = NonNullable<Cluster['status']>;

export interface ClusterStatusInputs {
  controlPlaneContractVersion: string;
  healthCheckingState?: HealthCheckingState;
  remoteConnectionGracePeriodMs: number;
  now: Date;
}

export function computeClusterStatus(
  scope: ClusterScope,
  _inputs: ClusterStatusInputs,
): { status: ClusterStatus; phaseChanged: boolean } {
  const cluster = scope.cluster;
  const before = cluster.status?.phase;
  let phase: ClusterStatus['phase'] = before ?? 'Pending';
  if (cluster.spec?.infrastructureRef || cluster.spec?.controlPlaneRef) phase = 'Provisioning';
  const ep = cluster.spec?.controlPlaneEndpoint;
  if (cluster.status?.initialization?.infrastructureProvisioned && ep?.host && ep.port) phase = 'Provisioned';
  if (cluster.metadata.deletionTimestamp) phase = 'Deleting';
  return { status: { ...cluster.status, phase }, phaseChanged: phase !== before };
}
