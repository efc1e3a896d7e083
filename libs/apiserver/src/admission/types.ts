// The parts of admissionregistration.k8s.io/v1 and admission.k8s.io/v1 the webhook dispatch reads
// (k8s.io/api/admissionregistration/v1/types.go, k8s.io/api/admission/v1/types.go).
import type { KubeObject, LabelSelector } from '@capi/apimachinery';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface RuleWithOperations {
  operations?: string[];
  apiGroups?: string[];
  apiVersions?: string[];
  resources?: string[];
  scope?: '*' | 'Cluster' | 'Namespaced';
}

export interface Webhook {
  name: string;
  clientConfig: { url?: string; caBundle?: string; service?: { namespace: string; name: string; path?: string } };
  rules?: RuleWithOperations[];
  failurePolicy?: 'Fail' | 'Ignore';
  namespaceSelector?: LabelSelector;
  objectSelector?: LabelSelector;
  sideEffects?: string;
  timeoutSeconds?: number;
  admissionReviewVersions?: string[];
  matchConditions?: { name: string; expression: string }[];
}

/** A webhook and the configuration it came from, in kube's call order. */
export interface ConfiguredWebhook {
  configuration: string;
  webhook: Webhook;
}

/** What a webhook is asked about: kube's admission.Attributes for one write. */
export interface AdmissionAttributes {
  group: string;
  version: string;
  kind: string;
  resource: string;
  subresource: string;
  namespaced: boolean;
  namespace: string;
  name: string;
  operation: Operation;
  object?: KubeObject;
  oldObject?: KubeObject;
  dryRun: boolean;
  /** CreateOptions / UpdateOptions / DeleteOptions, as kube passes them. */
  options: Record<string, unknown>;
}

export interface AdmissionResponse {
  uid?: string;
  allowed?: boolean;
  status?: { code?: number; status?: string; message?: string; reason?: string; details?: unknown };
  patch?: string;
  patchType?: string;
  warnings?: string[];
}
