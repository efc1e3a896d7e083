// The view's data: per Cluster the describe-cluster tree (@capi/cluster-tree) and a tile per Machine, plus the
// rollout counts over time. Plain JSON, what the API and the event stream send.
import { CLUSTER_NAME_LABEL, type Machine } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import { buildClusterTree, machineInPlaceState, type ClusterTree } from '@capi/cluster-tree';
import type { ViewObjects } from './object-store';
import type { OwnerSeries } from './rollout-counts';
import { TILE_LABELS, tileState, type TileState } from './tile-state';

export interface MachineTile {
  name: string;
  uid: string;
  state: TileState;
  label: string;
  version?: string;
  /** The ExtensionConfigs doing the in-place update; empty while updating with none recorded (all registered). */
  updaters?: string[];
  /**
   * RFC 3339: since when the Machine is in its state: its deletionTimestamp while deleting, else the transition of the
   * condition behind the state (Updating, UpToDate, Ready).
   */
  since?: string;
  /** The reason of the condition behind the state (e.g. InPlaceUpdating, DrainingNode). */
  reason?: string;
}

export interface ClusterView {
  namespace: string;
  name: string;
  phase?: string;
  tree: ClusterTree;
  /** By Machine UID, for the Machine nodes of the tree. */
  tiles: Record<string, MachineTile>;
}

export interface LiveViewState {
  /** RFC 3339. */
  generatedAt: string;
  clusters: ClusterView[];
  series: OwnerSeries[];
}

const SINCE_CONDITION: Partial<Record<TileState, string>> = {
  deleting: 'Deleting',
  updating: 'Updating',
  outdated: 'UpToDate',
  'up-to-date': 'UpToDate',
  ready: 'Ready',
};

export function machineTile(m: Machine): MachineTile {
  const state = tileState(m);
  const tile: MachineTile = {
    name: m.metadata.name ?? '',
    uid: m.metadata.uid ?? '',
    state,
    label: TILE_LABELS[state],
  };
  if (m.spec?.version) tile.version = m.spec.version;
  const inPlace = machineInPlaceState(m);
  if (state === 'updating' && inPlace) {
    tile.updaters = inPlace.updaters;
    if (inPlace.since) tile.since = inPlace.since;
    if (inPlace.reason) tile.reason = inPlace.reason;
    return tile;
  }
  if (state === 'deleting' && m.metadata.deletionTimestamp) tile.since = m.metadata.deletionTimestamp;
  const c = (m.status?.conditions ?? []).find((x) => x.type === SINCE_CONDITION[state]);
  if (c?.lastTransitionTime && !tile.since) tile.since = c.lastTransitionTime;
  if (c?.reason && state !== 'up-to-date' && state !== 'ready') tile.reason = c.reason;
  return tile;
}

const byName = (a: KubeObject, b: KubeObject) =>
  `${a.metadata.namespace}/${a.metadata.name}`.localeCompare(`${b.metadata.namespace}/${b.metadata.name}`);

/** Builds the whole view from the stored objects and the counts. */
export function buildLiveViewState(objects: ViewObjects, series: OwnerSeries[], now: Date): LiveViewState {
  const clusters = [...objects.clusters].sort(byName).map((cluster): ClusterView => {
    const namespace = cluster.metadata.namespace ?? '';
    const name = cluster.metadata.name ?? '';
    const mine = <T extends KubeObject>(list: T[]) =>
      list.filter((o) => o.metadata.namespace === namespace && o.metadata.labels?.[CLUSTER_NAME_LABEL] === name);
    const ref = cluster.spec?.controlPlaneRef;
    const controlPlane = ref
      ? objects.controlPlanes.find((k) => k.metadata.namespace === namespace && k.metadata.name === ref.name)
      : undefined;
    const machines = mine(objects.machines);
    const tree = buildClusterTree({
      cluster,
      controlPlane,
      machineDeployments: mine(objects.machineDeployments),
      machineSets: mine(objects.machineSets),
      machines,
    });
    return {
      namespace,
      name,
      ...(cluster.status?.phase ? { phase: cluster.status.phase } : {}),
      tree,
      tiles: Object.fromEntries(machines.map((m) => [m.metadata.uid ?? '', machineTile(m)])),
    };
  });
  return { generatedAt: now.toISOString(), clusters, series };
}
