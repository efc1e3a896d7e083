export { isLoopback, parseLiveViewAddress, type LiveViewAddress } from './address';
export {
  DEFAULT_ASSETS_DIR,
  LiveViewListenError,
  LiveViewModule,
  LiveViewService,
  type LiveViewOptions,
} from './live-view.module';
export { RolloutCounter, rolloutOwnerOf, type CountPoint, type OwnerSeries, type RolloutOwner } from './rollout-counts';
export { TILE_LABELS, tileState, type TileState } from './tile-state';
export type { ClusterView, LiveViewState, MachineTile } from './view';
