// The tree `clusterctl describe cluster` prints, as plain JSON-serialisable data (upstream
// cmd/clusterctl/client/tree/discovery.go builds it; internal/util/tree/tree.go picks each row's columns).

/** A condition as a row shows it (clusterctl's STATUS / REASON / SINCE / MESSAGE columns). */
export interface RowCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  /** RFC 3339; the renderer turns it into an age ("5m30s") at a given now. */
  lastTransitionTime?: string;
}

/**
 * A Machine's in-place update state, read from what the controllers record on it:
 * - `updating`: the update-in-progress annotation or a pending UpdateMachine hook (@capi/api isUpdateInProgress);
 * - `pendingHooks`: the `runtime.cluster.x-k8s.io/pending-hooks` annotation;
 * - `updaters`: the ExtensionConfigs whose patches make up the change (`in-place-updates.capi-inplace.io/updaters`,
 *   written by the MachineSet / KCP controllers with update-in-progress). `updatersRecorded` is false when the Machine
 *   has no such record: the Machine controller then calls every registered UpdateMachine handler, so `updaters` is
 *   empty and a reader should say "all registered";
 * - `since`: lastTransitionTime of the Machine's Updating condition while it is True; undefined when the Machine is
 *   marked but the Machine controller has not set the condition yet (nothing else on the Machine records when);
 * - `reason` / `message`: the Updating condition's.
 */
export interface MachineInPlaceState {
  updating: boolean;
  pendingHooks: string[];
  updaters: string[];
  updatersRecorded: boolean;
  since?: string;
  reason?: string;
  message?: string;
}

/**
 * What a node stands for. Objects have their own kind; `Workers` and `Other` are clusterctl's virtual groups
 * (WorkerGroup, OtherGroup). `role` is clusterctl's meta name for objects reached through a reference.
 */
export type TreeRole = 'ClusterInfrastructure' | 'ControlPlane' | 'MachineInfrastructure' | 'BootstrapConfig';

export interface TreeNode {
  kind: string;
  /** Empty for virtual groups. */
  apiVersion?: string;
  name: string;
  namespace?: string;
  uid?: string;
  role?: TreeRole;
  /** True for the `Workers` / `Other` groups (no object behind them). */
  virtual?: boolean;
  /** spec.version (Machine, MachineSet/MachineDeployment template, control plane). */
  version?: string;
  deleting?: boolean;
  /** clusterctl's columns: REPLICAS ("current/desired"), AVAILABLE, READY, UP TO DATE; absent = blank. */
  replicas?: string;
  available?: string;
  ready?: string;
  upToDate?: string;
  /** The condition clusterctl picks for the row: Available (Cluster, MachineDeployment, control plane), Ready (Machine, provider objects). */
  condition?: RowCondition;
  /** Machines only. */
  inPlace?: MachineInPlaceState;
  children: TreeNode[];
}

/** The whole tree; `root` is the Cluster. */
export interface ClusterTree {
  root: TreeNode;
}
