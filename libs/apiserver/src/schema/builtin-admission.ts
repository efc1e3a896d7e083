// admissionregistration.k8s.io/v1 Mutating/ValidatingWebhookConfiguration (k8s.io/api/admissionregistration/v1
// types.go): webhooks a list-map keyed by name, rules and string lists atomic, and the defaults kube's
// SetDefaults_*Webhook / SetDefaults_Rule write (pkg/apis/admissionregistration/v1/defaults.go).
import { OpenApiSchema } from './types';

const str: OpenApiSchema = { type: 'string' };
const loose = (extra: OpenApiSchema = {}): OpenApiSchema => ({
  type: 'object',
  'x-kubernetes-preserve-unknown-fields': true,
  ...extra,
});
const atomicStrings: OpenApiSchema = { type: 'array', items: str, 'x-kubernetes-list-type': 'atomic' };
const selector: OpenApiSchema = loose({
  'x-kubernetes-map-type': 'atomic',
  default: {},
  properties: { matchLabels: { type: 'object', additionalProperties: str } },
});

function webhooks(mutating: boolean): OpenApiSchema {
  return {
    type: 'array',
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['name'],
    items: loose({
      required: ['name'],
      properties: {
        name: str,
        clientConfig: loose({
          properties: {
            url: str,
            caBundle: { type: 'string', format: 'byte' },
            service: loose({ properties: { namespace: str, name: str, path: str, port: { type: 'integer' } } }),
          },
        }),
        rules: {
          type: 'array',
          'x-kubernetes-list-type': 'atomic',
          items: loose({
            properties: {
              operations: atomicStrings,
              apiGroups: atomicStrings,
              apiVersions: atomicStrings,
              resources: atomicStrings,
              scope: { type: 'string', default: '*', enum: ['*', 'Cluster', 'Namespaced'] },
            },
          }),
        },
        failurePolicy: { type: 'string', default: 'Fail', enum: ['Fail', 'Ignore'] },
        matchPolicy: { type: 'string', default: 'Equivalent', enum: ['Exact', 'Equivalent'] },
        namespaceSelector: selector,
        objectSelector: selector,
        sideEffects: { type: 'string', enum: ['None', 'NoneOnDryRun'] },
        timeoutSeconds: { type: 'integer', format: 'int32', default: 10 },
        admissionReviewVersions: atomicStrings,
        matchConditions: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: loose({ required: ['name'], properties: { name: str, expression: str } }),
        },
        ...(mutating ? { reinvocationPolicy: { type: 'string', default: 'Never', enum: ['Never', 'IfNeeded'] } } : {}),
      },
    }),
  };
}

const configuration = (mutating: boolean): OpenApiSchema =>
  loose({ properties: { apiVersion: str, kind: str, metadata: { type: 'object' }, webhooks: webhooks(mutating) } });

export const ADMISSION_SCHEMAS: Record<string, OpenApiSchema> = {
  'admissionregistration.k8s.io/v1/MutatingWebhookConfiguration': configuration(true),
  'admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration': configuration(false),
};
