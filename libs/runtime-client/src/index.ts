export * from './catalog';
export * from './errors';
export * from './extension-config';
export * from './registry';
export * from './transport';
export * from './client-certificate';
export { extensionUrl, formatDurationSeconds } from './invoke';
export * from './discovery';
export * from './cache';
export * from './metrics';
export * from './client';
export * from './extension-server/extension-server';
export * from './runtime-client.module';
export {
  ExtensionConfigReconciler,
  ExtensionConfigError,
  extensionConfigControllerOptions,
  type ExtensionConfigReconcilerOptions,
  type ReconcileRequest,
  type ReconcileResult,
} from './extension-config-reconciler';
export * from './extension-server/extension-server.module';
export * from './module/extension-config.module';
export {
  registryReadiness,
  runWarmUp,
  WarmUpDiscoveryError,
  WarmUpTimeoutError,
  type WarmUpPolicy,
  type WarmUpOutcome,
  type RegistryReadinessState,
} from './module/warm-up';
export * from './in-process';
