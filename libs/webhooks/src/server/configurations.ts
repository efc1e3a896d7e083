// The MutatingWebhookConfiguration and ValidatingWebhookConfiguration (admissionregistration.k8s.io/v1) that make
// the API server call the webhooks, as controller-gen renders upstream's +kubebuilder:webhook markers into
// core/config/webhook/manifests.yaml (failurePolicy Fail, sideEffects None, matchPolicy Equivalent, v1 reviews), named
// as upstream's deployed ones (config/default: namePrefix capi-).
import { webhookPath, type AdmissionOperation, type WebhookRegistration } from '../admission/types';

export const MUTATING_WEBHOOK_CONFIGURATION = 'capi-mutating-webhook-configuration';
export const VALIDATING_WEBHOOK_CONFIGURATION = 'capi-validating-webhook-configuration';

/** Where the API server reaches the webhook server: a URL (the paths are appended) or a Service. */
export type WebhookTarget =
  | { url: string; caBundle?: string }
  | { service: { name: string; namespace: string; port?: number }; caBundle?: string };

export interface WebhookConfigurationOptions {
  mutatingName?: string;
  validatingName?: string;
  annotations?: Record<string, string>;
}

interface Webhook {
  name: string;
  admissionReviewVersions: string[];
  clientConfig: Record<string, unknown>;
  failurePolicy: 'Fail';
  matchPolicy: 'Equivalent';
  sideEffects: 'None';
  rules: { apiGroups: string[]; apiVersions: string[]; operations: AdmissionOperation[]; resources: string[] }[];
}

export interface WebhookConfiguration {
  apiVersion: 'admissionregistration.k8s.io/v1';
  kind: 'MutatingWebhookConfiguration' | 'ValidatingWebhookConfiguration';
  metadata: { name: string; annotations?: Record<string, string> };
  webhooks: Webhook[];
}

const DEFAULT_VERBS: AdmissionOperation[] = ['CREATE', 'UPDATE'];

/** The webhook's name as upstream's markers spell it: `default.<kind>.<group>` / `validation.<kind>.<group>`. */
export function webhookName(kind: 'mutate' | 'validate', r: WebhookRegistration): string {
  const given = kind === 'mutate' ? r.mutateWebhookName : r.validateWebhookName;
  return given ?? `${kind === 'mutate' ? 'default' : 'validation'}.${r.kind.toLowerCase()}.${r.group}`;
}

function clientConfig(target: WebhookTarget, path: string): Record<string, unknown> {
  const ca = target.caBundle ? { caBundle: target.caBundle } : {};
  if ('url' in target) return { url: target.url.replace(/\/+$/, '') + path, ...ca };
  return { service: { ...target.service, path }, ...ca };
}

function webhook(kind: 'mutate' | 'validate', r: WebhookRegistration, target: WebhookTarget): Webhook {
  const path = (kind === 'mutate' ? r.mutatePath : r.validatePath) ?? webhookPath(kind, r.group, r.version, r.kind);
  const verbs = (kind === 'mutate' ? r.mutateVerbs : r.validateVerbs) ?? DEFAULT_VERBS;
  return {
    name: webhookName(kind, r),
    admissionReviewVersions: ['v1'],
    clientConfig: clientConfig(target, path),
    failurePolicy: 'Fail',
    matchPolicy: 'Equivalent',
    sideEffects: 'None',
    rules: [{ apiGroups: [r.group], apiVersions: [r.version], operations: [...verbs], resources: [r.resource] }],
  };
}

/** Both configurations for `registrations`: one webhook per defaulter (mutating) and per validator (validating). */
export function webhookConfigurations(
  registrations: readonly WebhookRegistration[],
  target: WebhookTarget,
  opts: WebhookConfigurationOptions = {},
): { mutating: WebhookConfiguration; validating: WebhookConfiguration } {
  const metadata = (name: string) => ({ name, ...(opts.annotations ? { annotations: opts.annotations } : {}) });
  return {
    mutating: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: metadata(opts.mutatingName ?? MUTATING_WEBHOOK_CONFIGURATION),
      webhooks: registrations.filter((r) => r.defaulter).map((r) => webhook('mutate', r, target)),
    },
    validating: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: metadata(opts.validatingName ?? VALIDATING_WEBHOOK_CONFIGURATION),
      webhooks: registrations.filter((r) => r.validator).map((r) => webhook('validate', r, target)),
    },
  };
}
