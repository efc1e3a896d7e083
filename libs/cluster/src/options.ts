import type { PassiveClock } from '@capi/apimachinery';
import type { ModuleMetadata } from '@nestjs/common';

export const CLUSTER_CONTROLLER_NAME = 'cluster';
/** Field manager of the Cluster controller's writes (upstream's manager name for core/reconcilers/cluster). */
export const CLUSTER_FIELD_MANAGER = 'capi-cluster';
export const CLUSTER_CONTROLLER_OPTIONS = Symbol.for('capi.ClusterControllerOptions');
/** upstream core/main.go --remote-connection-grace-period default. */
export const DEFAULT_REMOTE_CONNECTION_GRACE_PERIOD_MS = 50_000;

export interface ClusterControllerOptions {
  imports?: ModuleMetadata['imports'];
  /** Field manager of the controller's writes (default capi-cluster). */
  fieldManager?: string;
  /** Time source for conditions and events. */
  clock?: PassiveClock;
  /** How long a workload cluster may fail its health probe before RemoteConnectionProbe turns False (default 50 s). */
  remoteConnectionGracePeriodMs?: number;
  maxConcurrentReconciles?: number;
}
