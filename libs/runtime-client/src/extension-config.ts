// runtime.cluster.x-k8s.io/v1beta2 ExtensionConfig as JSON (only the fields the runtime client uses).
import type { KubeObject } from '@capi/controller-runtime';
import type { FailurePolicy, GroupVersionHookRef } from '@capi/api';

export const RUNTIME_API_VERSION = 'runtime.cluster.x-k8s.io/v1beta2';
export const EXTENSION_CONFIG_KIND = 'ExtensionConfig';
export const INJECT_CA_FROM_SECRET_ANNOTATION = 'runtime.cluster.x-k8s.io/inject-ca-from-secret';
export const PAUSED_ANNOTATION = 'cluster.x-k8s.io/paused';
/** Key of the CA certificate in the annotated Secret. */
export const CA_SECRET_KEY = 'ca.crt';

export const DISCOVERED_CONDITION = 'Discovered';
export const DISCOVERED_REASON = 'Discovered';
export const NOT_DISCOVERED_REASON = 'NotDiscovered';

export interface LabelSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

export interface ServiceReference {
  namespace: string;
  name: string;
  path?: string;
  port?: number;
}

export interface ClientConfig {
  url?: string;
  service?: ServiceReference;
  /** base64 of the PEM bundle (Go []byte). */
  caBundle?: string;
}

export interface ExtensionHandlerStatus {
  name: string;
  requestHook: GroupVersionHookRef;
  timeoutSeconds?: number;
  failurePolicy?: FailurePolicy;
}

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  observedGeneration?: number;
  lastTransitionTime: string;
  reason: string;
  message?: string;
}

export interface ExtensionConfig extends KubeObject {
  spec: {
    clientConfig: ClientConfig;
    namespaceSelector?: LabelSelector;
    settings?: Record<string, string>;
  };
  status?: {
    handlers?: ExtensionHandlerStatus[];
    conditions?: Condition[];
  };
}
