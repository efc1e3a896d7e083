// ExtensionConfig (runtime.cluster.x-k8s.io/v1beta2) as used by the runtime client. The typed kind lives in @capi/api;
// only what @capi/api does not define is declared here.
import type {
  ExtensionConfig as ApiExtensionConfig,
  ExtensionClientConfig,
  ExtensionConfigHandler,
  LabelSelector,
} from '@capi/api';

export const EXTENSION_CONFIG_KIND = 'ExtensionConfig';
/** Key of the CA certificate in the Secret named by runtime.cluster.x-k8s.io/inject-ca-from-secret. */
export const CA_SECRET_KEY = 'ca.crt';
/** v1beta2 Discovered=False reason (upstream ExtensionConfigNotDiscoveredReason). */
export const NOT_DISCOVERED_REASON = 'NotDiscovered';

export type ExtensionConfig = ApiExtensionConfig;
export type ClientConfig = ExtensionClientConfig;
export type ExtensionHandlerStatus = ExtensionConfigHandler;
export type { LabelSelector };
