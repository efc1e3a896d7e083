import type { PassiveClock } from '@capi/apimachinery';
import type { ModuleMetadata } from '@nestjs/common';
import type { WorkloadClusterClientProvider } from '@capi/clustercache';

export const MACHINE_CONTROLLER_NAME = 'machine';
/** Field manager of the Machine controller's applies (like upstream). */
export const MACHINE_FIELD_MANAGER = 'capi-machine';
export const MACHINE_CONTROLLER_OPTIONS = Symbol.for('capi.MachineControllerOptions');

export interface MachineControllerOptions {
  /** Modules providing RUNTIME_CLIENT (e.g. RuntimeClientModule.forRoot) or other tokens the controller injects. */
  imports?: ModuleMetadata['imports'];
  /** Replaces the default (kubeconfig Secret based) workload cluster client provider. */
  workloadClusterClientProvider?: WorkloadClusterClientProvider;
  /** Time source (ms since epoch) for conditions, minReadySeconds and the hook retry cache. */
  clock?: PassiveClock;
  /** While a Machine waits for its Node (or runs), re-check the workload cluster this often; default 10 s. */
  nodePollIntervalMs?: number;
  maxConcurrentReconciles?: number;
  /** How long one reconcile retries a failed Node deletion of a deleting Machine; default 10 s (upstream). */
  nodeDeletionRetryTimeoutMs?: number;
}
