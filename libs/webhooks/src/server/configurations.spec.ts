import type { WebhookRegistration } from '../admission/types';
import { webhookConfigurations } from './configurations';

const noop = { default: () => undefined };
const none = { validateCreate: () => undefined, validateUpdate: () => undefined, validateDelete: () => undefined };

const md: WebhookRegistration = {
  group: 'cluster.x-k8s.io',
  version: 'v1beta2',
  kind: 'MachineDeployment',
  resource: 'machinedeployments',
  defaulter: noop,
  validator: none,
};
// Upstream's irregular names and a scale subresource (controlplane/kubeadm/config/webhook/manifests.yaml).
const kcpScale: WebhookRegistration = {
  group: 'controlplane.cluster.x-k8s.io',
  version: 'v1beta2',
  kind: 'KubeadmControlPlane',
  resource: 'kubeadmcontrolplanes/scale',
  validator: none,
  validatePath: '/validate-scale-controlplane-cluster-x-k8s-io-v1beta2-kubeadmcontrolplane',
  validateWebhookName: 'validation-scale.kubeadmcontrolplane.controlplane.cluster.x-k8s.io',
  validateVerbs: ['UPDATE'],
};

describe('webhookConfigurations (core/config/webhook/manifests.yaml)', () => {
  it('a URL target: one mutating webhook per defaulter, one validating per validator, as controller-gen renders them', () => {
    const { mutating, validating } = webhookConfigurations([md, kcpScale], {
      url: 'https://127.0.0.1:9443/',
      caBundle: 'Q0E=',
    });
    expect(mutating).toEqual({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: 'capi-mutating-webhook-configuration' },
      webhooks: [
        {
          name: 'default.machinedeployment.cluster.x-k8s.io',
          admissionReviewVersions: ['v1'],
          clientConfig: {
            url: 'https://127.0.0.1:9443/mutate-cluster-x-k8s-io-v1beta2-machinedeployment',
            caBundle: 'Q0E=',
          },
          failurePolicy: 'Fail',
          matchPolicy: 'Equivalent',
          sideEffects: 'None',
          rules: [
            {
              apiGroups: ['cluster.x-k8s.io'],
              apiVersions: ['v1beta2'],
              operations: ['CREATE', 'UPDATE'],
              resources: ['machinedeployments'],
            },
          ],
        },
      ],
    });
    expect(validating.metadata.name).toBe('capi-validating-webhook-configuration');
    expect(
      validating.webhooks.map((w) => [w.name, w.clientConfig.url, w.rules[0].operations, w.rules[0].resources]),
    ).toEqual([
      [
        'validation.machinedeployment.cluster.x-k8s.io',
        'https://127.0.0.1:9443/validate-cluster-x-k8s-io-v1beta2-machinedeployment',
        ['CREATE', 'UPDATE'],
        ['machinedeployments'],
      ],
      [
        'validation-scale.kubeadmcontrolplane.controlplane.cluster.x-k8s.io',
        'https://127.0.0.1:9443/validate-scale-controlplane-cluster-x-k8s-io-v1beta2-kubeadmcontrolplane',
        ['UPDATE'],
        ['kubeadmcontrolplanes/scale'],
      ],
    ]);
  });

  it('a Service target with the cert-manager annotation and no caBundle (injected)', () => {
    const { validating } = webhookConfigurations(
      [md],
      { service: { name: 'capi-webhook-service', namespace: 'capi-system' } },
      { annotations: { 'cert-manager.io/inject-ca-from': 'capi-system/capi-serving-cert' } },
    );
    expect(validating.metadata.annotations).toEqual({
      'cert-manager.io/inject-ca-from': 'capi-system/capi-serving-cert',
    });
    expect(validating.webhooks[0].clientConfig).toEqual({
      service: {
        name: 'capi-webhook-service',
        namespace: 'capi-system',
        path: '/validate-cluster-x-k8s-io-v1beta2-machinedeployment',
      },
    });
  });
});
