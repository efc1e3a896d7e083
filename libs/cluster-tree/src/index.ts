// @capi/cluster-tree: a Cluster's objects grouped as `clusterctl describe cluster` shows them, with each Machine's
// in-place state; plain data (JSON-serialisable) and a text rendering. Pure: no API calls.
export { buildClusterTree, type ClusterTreeInput } from './build';
export { describeUpdaters, machineInPlaceState } from './in-place';
export type { ClusterTree, MachineInPlaceState, RowCondition, TreeNode, TreeRole } from './model';
export { renderClusterTree, rowCells, rowName, TREE_COLUMNS } from './render';
