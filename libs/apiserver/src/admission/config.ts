// Validation of Mutating/ValidatingWebhookConfiguration objects, the rules of kube's
// pkg/apis/admissionregistration/validation/validation.go that the schema (schema/builtin-admission.ts: enums,
// defaults) does not express, and the order kube calls their webhooks in.
import type { KubeObject } from '@capi/apimachinery';
import type { Cause } from '../server/status';
import type { ConfiguredWebhook, Webhook } from './types';

export const ADMISSION_GROUP = 'admissionregistration.k8s.io';
export const MUTATING_KIND = 'MutatingWebhookConfiguration';
export const VALIDATING_KIND = 'ValidatingWebhookConfiguration';

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

const required = (field: string, detail: string): Cause => ({
  type: 'FieldValueRequired',
  field,
  message: `Required value: ${detail}`,
});
const invalidCause = (field: string, value: unknown, detail: string): Cause => ({
  type: 'FieldValueInvalid',
  field,
  message: `Invalid value: ${JSON.stringify(value)}: ${detail}`,
});

/** ValidateMutatingWebhookConfiguration / ValidateValidatingWebhookConfiguration, the parts kept here. */
export function webhookConfigurationCauses(obj: KubeObject): Cause[] {
  const causes: Cause[] = [];
  const hooks = Array.isArray(obj.webhooks) ? (obj.webhooks as Webhook[]) : [];
  const names = new Set<string>();
  hooks.forEach((h, i) => {
    const path = `webhooks[${i}]`;
    // IsFullyQualifiedName: a DNS-1123 subdomain with at least three segments.
    if (h.name && (h.name.split('.').length < 3 || !h.name.split('.').every((s) => DNS1123_LABEL.test(s))))
      causes.push(
        invalidCause(`${path}.name`, h.name, 'should be a domain with at least three segments separated by dots'),
      );
    else if (h.name && names.has(h.name))
      causes.push({
        type: 'FieldValueDuplicate',
        field: `${path}.name`,
        message: `Duplicate value: ${JSON.stringify(h.name)}`,
      });
    names.add(h.name);
    if (!h.sideEffects) causes.push(required(`${path}.sideEffects`, 'must specify one of None, NoneOnDryRun'));
    if (!(h.admissionReviewVersions ?? []).length)
      causes.push(required(`${path}.admissionReviewVersions`, 'must specify one of v1, v1beta1'));
    const cc = h.clientConfig ?? {};
    if (!cc.url === !cc.service)
      causes.push(required(`${path}.clientConfig`, 'exactly one of url or service is required'));
    else if (cc.url && !cc.url.startsWith('https://'))
      causes.push(invalidCause(`${path}.clientConfig.url`, cc.url, "'https' is the only allowed URL scheme"));
    // CEL is not evaluated here: a configuration relying on matchConditions is refused rather than called more
    // often than kube-apiserver would call it.
    if ((h.matchConditions ?? []).length)
      causes.push({
        type: 'FieldValueForbidden',
        field: `${path}.matchConditions`,
        message: 'Forbidden: matchConditions (CEL) are not supported by the embedded API server',
      });
  });
  return causes;
}

/**
 * The webhooks of the stored configurations in kube's call order: configurations sorted by name, then each one's
 * webhooks in order (configuration/mutating_webhook_manager.go, validating_webhook_manager.go).
 */
export function orderedWebhooks(configs: KubeObject[]): ConfiguredWebhook[] {
  return [...configs]
    .sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : a.metadata.name! > b.metadata.name! ? 1 : 0))
    .flatMap((c) =>
      ((c.webhooks as Webhook[] | undefined) ?? []).map((webhook) => ({ configuration: c.metadata.name!, webhook })),
    );
}
