export * from './config/config';
export { ConfigError, FLAGS, parseFlags, parseDuration, usage, type FlagDef, type RawFlags } from './config/flags';
export * from './controllers/registry';
export * from './embedded/embedded';
export { DataDirInUseError, LOCK_FILE } from './embedded/data-dir-lock';
export { EmbeddedProviderModule, type EmbeddedProviderOptions } from './embedded/embedded-provider.module';
export {
  UpdaterRegistration,
  updaterExtensionConfig,
  UPDATER_EXTENSION_CONFIG_NAME,
} from './embedded/updater-registration';
export { main, embeddedBanner } from './main';
export * from './health/health';
export * from './logging/logger';
export { API_WARNINGS_LOGGER, defaultApiWarnings, domainQualifiedFinalizerWarning } from './logging/api-warnings';
export * from './metrics/metrics';
export { ListenError, type Endpoint, type EndpointFlag } from './metrics/http-endpoint';
export * from './lifecycle/exit-reporting';
export { applyHeapGrowingPercent } from './lifecycle/heap';
export * from './manager.module';
export * from './runtime-sdk/warm-up-exit';
export * from './webhooks/webhook-server';
export { ensureEmbeddedWebhookCerts, type EmbeddedWebhookCerts } from './embedded/webhook-certs';
