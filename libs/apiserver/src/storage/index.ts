export * from './store';
export type { LeaseOptions } from './leases';
export { ensurePrivateDir, PRIVATE_DIR_MODE } from './file-modes';
export { checkDatabase, inspectDatabase, StorageDamagedError } from './integrity';
export {
  CREDENTIAL_FILES,
  restoreSnapshot,
  saveSnapshot,
  SnapshotError,
  type DataDirLayout,
  type SnapshotSummary,
} from './snapshot';
