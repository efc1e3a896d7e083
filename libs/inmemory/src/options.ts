// Module options and injection tokens of the in-memory provider.
import type { StartInPlaceUpdaterOptions } from '@capi/inplace-updater';

export interface InMemoryProviderOptions {
  /** How long a VM takes to "boot" before its Node appears (default 1500 ms; 0 for benchmarks). */
  provisioningDelayMs?: number;
  /** Milliseconds since epoch (tests). */
  now?: () => number;
  /**
   * Start the reference in-place updater wired to the host backend with the module (token INMEMORY_INPLACE_UPDATER
   * gives its url/caBundle for an ExtensionConfig). Off by default.
   */
  inPlaceUpdater?: false | (Omit<StartInPlaceUpdaterOptions, 'now'> & { nodeNotReadyDuringUpdate?: boolean });
  /**
   * Where the simulated workload clusters' API servers run: `in-process` (default) or `child-process`, one child
   * process for all of them, as a real workload cluster is outside the manager's process (its memory and CPU are then
   * not the manager's; see WorkloadServerHost).
   */
  workloadServers?: WorkloadServersMode;
}

/** Where the workload clusters' API servers run (InMemoryProviderOptions.workloadServers). */
export const WORKLOAD_SERVERS_MODES = ['in-process', 'child-process'] as const;
export type WorkloadServersMode = (typeof WORKLOAD_SERVERS_MODES)[number];

export const DEFAULT_PROVISIONING_DELAY_MS = 1500;

export const INMEMORY_OPTIONS = Symbol('INMEMORY_OPTIONS');
/** WorkloadClusters: the embedded workload API servers. */
export const WORKLOAD_CLUSTERS = Symbol('WORKLOAD_CLUSTERS');
/** InMemoryHostBackend used by the in-place updater. */
export const INMEMORY_HOST_BACKEND = Symbol('INMEMORY_HOST_BACKEND');
/** RunningInPlaceUpdater | undefined (when options.inPlaceUpdater is set). */
export const INMEMORY_INPLACE_UPDATER = Symbol('INMEMORY_INPLACE_UPDATER');
