export * from './store';
export type { LeaseOptions } from './leases';
