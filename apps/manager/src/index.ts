export * from './config/config';
export { ConfigError, FLAGS, parseFlags, parseDuration, usage, type FlagDef, type RawFlags } from './config/flags';
export * from './controllers/registry';
export * from './embedded/embedded';
export * from './health/health';
export * from './logging/logger';
export * from './metrics/metrics';
export type { Endpoint } from './metrics/http-endpoint';
export * from './manager.module';
