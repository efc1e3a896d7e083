import type { PassiveClock } from '@capi/apimachinery';
import type { ModuleMetadata } from '@nestjs/common';
import type { WorkloadClusterClientProvider } from '@capi/clustercache';

export const MHC_CONTROLLER_NAME = 'machinehealthcheck';
/** Field manager of every MHC write (Machine conditions, MHC metadata and status). */
export const MHC_FIELD_MANAGER = 'capi-machinehealthcheck';
export const MHC_CONTROLLER_OPTIONS = Symbol.for('capi.MachineHealthCheckControllerOptions');

export interface MachineHealthCheckControllerOptions {
  imports?: ModuleMetadata['imports'];
  /** Replaces the default (kubeconfig Secret based) workload cluster client provider. */
  workloadClusterClientProvider?: WorkloadClusterClientProvider;
  /** Time source (ms since epoch) for timeouts and lastTransitionTime. */
  clock?: PassiveClock;
  /**
   * Workload cluster Nodes are not watched: while targets have Nodes, re-check this often (default 30 s). Timeouts
   * are requeued for exactly, independently of this.
   */
  nodePollIntervalMs?: number;
  maxConcurrentReconciles?: number;
}
