export * from './store';
export type { LeaseOptions } from './leases';
export { ensurePrivateDir, PRIVATE_DIR_MODE } from './file-modes';
