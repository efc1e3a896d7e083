export { type GroupVersionHook, gvhToPath, hookDescriptor, type HookDescriptor } from './catalog';
export { ExtensionCallError, type ExtensionCallErrorReason, TRANSPORT_LEVEL_REASONS } from './errors';
export type { ClientConfig, ExtensionConfig, LabelSelector } from './extension-config';
export { type ExtensionRegistration, ExtensionRegistry, RegistryNotReadyError } from './registry';
export {
  type ExtensionTransport,
  HttpsExtensionTransport,
  type PostOptions,
  type TransportResponse,
} from './transport';
export {
  type ClientCertificate,
  ClientCertificateFiles,
  type ClientCertificateFilesOptions,
  type ClientCertificateSource,
} from './client-certificate';
export { discoverExtension } from './discovery';
export { boundExtensionMessage, MAX_EXTENSION_MESSAGE_CHARS } from './message-limit';
export type { CacheKeyFunc, ResponseCache } from './cache';
export { type RequestObservation, RuntimeSdkMetrics } from './metrics';
export {
  aggregateResponses,
  type CallExtensionOptions,
  type ForObject,
  type NamespaceLabelsReader,
  RuntimeClient,
  singleExtension,
} from './client';
export {
  type AnyExtensionHandler,
  createExtensionServer,
  type ExtensionHandlerDefinition,
  type ExtensionServer,
  type ExtensionServerOptions,
  generateServerTls,
  type TlsMaterial,
} from './extension-server/extension-server';
export {
  CLIENT_CERTIFICATE_SOURCE,
  EXTENSION_CONFIG_RECONCILER,
  EXTENSION_REGISTRY,
  EXTENSION_TRANSPORT,
  NAMESPACE_LABELS_READER,
  RUNTIME_CLIENT,
  RUNTIME_SDK_METRICS,
  namespaceLabelsFromClient,
  RuntimeClientModule,
  type RuntimeClientModuleOptions,
} from './runtime-client.module';
export {
  extensionConfigControllerOptions,
  secretMetadataCache,
  ExtensionConfigReconciler,
  type ExtensionConfigReconcilerOptions,
  type ReconcileRequest,
  type ReconcileResult,
} from './extension-config-reconciler';
export { EXTENSION_SERVER, ExtensionServerModule } from './extension-server/extension-server.module';
export {
  EXTENSION_CONFIG_MODULE_OPTIONS,
  EXTENSION_REGISTRY_READY_CHECK,
  ExtensionConfigController,
  ExtensionConfigModule,
  type ExtensionConfigModuleOptions,
} from './module/extension-config.module';
export { WarmUpDiscoveryError, type WarmUpOutcome, type WarmUpPolicy, WarmUpTimeoutError } from './module/warm-up';
export {
  IN_PLACE_UPDATERS,
  inPlaceUpdater,
  type InPlaceUpdater,
  type InPlaceUpdaterSource,
  InProcessAwareTransport,
  type InProcessResponse,
  InProcessUpdaters,
} from './in-process';
