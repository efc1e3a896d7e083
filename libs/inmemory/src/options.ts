// Module options and injection tokens of the in-memory provider.
import type { StartInPlaceUpdaterOptions } from '@capi/inplace-updater';
import type { WorkloadPodsOptions } from './pods/simulator';

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
  /**
   * Simulate the workload clusters' Pods: kube-proxy on every Node, CoreDNS, a sample Deployment with a
   * PodDisruptionBudget and a volume; kubelets finishing terminating Pods; replacements after a drain; volume
   * attach/detach. Off by default (`false`): the clusters then have only the control plane's mirror Pods, so
   * deleting a Machine drains nothing and suites that create many clusters pay nothing for it. `true` = `{}`.
   */
  workloadPods?: boolean | WorkloadPodsOptions;
}

/** The Pod simulation options `workloadPods` asks for, or undefined when off. */
export const workloadPodsOptions = (o: InMemoryProviderOptions): WorkloadPodsOptions | undefined =>
  o.workloadPods === true ? {} : o.workloadPods || undefined;

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
