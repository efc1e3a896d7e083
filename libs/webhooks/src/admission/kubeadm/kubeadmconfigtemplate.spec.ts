// Ported from bootstrap/kubeadm/webhooks/admission/kubeadmconfigtemplate_test.go TestKubeadmConfigTemplateDefault,
// TestKubeadmConfigTemplateValidation.
import type { KubeadmConfigTemplate } from '@capi/api';
import { AdmissionError } from '../field-errors';
import { KubeadmConfigTemplateWebhook, TOPOLOGY_DRY_RUN_ANNOTATION } from './kubeadmconfigtemplate';

const template = (t: Record<string, unknown> = {}, annotations?: Record<string, string>): KubeadmConfigTemplate =>
  ({
    apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta2',
    kind: 'KubeadmConfigTemplate',
    metadata: { name: 'baz', namespace: 'default', ...(annotations ? { annotations } : {}) },
    spec: { template: t },
  }) as KubeadmConfigTemplate;

const webhook = new KubeadmConfigTemplateWebhook();

describe('KubeadmConfigTemplate Default (TestKubeadmConfigTemplateDefault)', () => {
  it('for KubeadmConfigTemplate: defaulted object validates on create and update', () => {
    const t = template({ spec: { verbosity: 4 } });
    webhook.default(t, { operation: 'CREATE' });
    expect(webhook.validateCreate(t)).toEqual([]);
    expect(webhook.validateUpdate(t, t)).toEqual([]);
  });

  it('sets no defaults on an ordinary request', () => {
    const t = template({}, { [TOPOLOGY_DRY_RUN_ANNOTATION]: '' });
    const original = structuredClone(t);
    webhook.default(t, { operation: 'CREATE' });
    expect(t).toEqual(original);
  });

  it('sets no defaults on a dry-run without the topology annotation', () => {
    const t = template();
    const original = structuredClone(t);
    webhook.default(t, { operation: 'CREATE', dryRun: true });
    expect(t).toEqual(original);
  });

  it("applies the previous defaults on the topology controller's dry-run", () => {
    const t = template(
      { spec: { joinConfiguration: { discovery: { file: { kubeConfig: { user: { exec: { command: 'c' } } } } } } } },
      { [TOPOLOGY_DRY_RUN_ANNOTATION]: '' },
    );
    webhook.default(t, { operation: 'UPDATE', dryRun: true });
    expect(t.spec.template.spec).toEqual({
      format: 'cloud-config',
      initConfiguration: { nodeRegistration: { imagePullPolicy: 'IfNotPresent' } },
      joinConfiguration: {
        nodeRegistration: { imagePullPolicy: 'IfNotPresent' },
        discovery: {
          file: { kubeConfig: { user: { exec: { command: 'c', apiVersion: 'client.authentication.k8s.io/v1' } } } },
        },
      },
    });
  });
});

describe('KubeadmConfigTemplate validation (TestKubeadmConfigTemplateValidation)', () => {
  it.each<[string, boolean, KubeadmConfigTemplate]>([
    ['valid configuration', false, template({ spec: {} })],
    [
      'should return error for invalid labels and annotations',
      true,
      template({
        metadata: {
          labels: { foo: '$invalid-key', bar: 'a'.repeat(64) + 'too-long-value', '/invalid-key': 'foo' },
          annotations: { '/invalid-key': 'foo' },
        },
      }),
    ],
  ])('%s', (_name, expectErr, t) => {
    if (expectErr) {
      expect(() => webhook.validateCreate(t)).toThrow(AdmissionError);
      expect(() => webhook.validateUpdate(t, t)).toThrow(AdmissionError);
    } else {
      expect(webhook.validateCreate(t)).toEqual([]);
      expect(webhook.validateUpdate(t, t)).toEqual([]);
    }
  });

  it('reports the embedded spec under spec.template.spec', () => {
    const t = template({ spec: { files: [{ path: 'a' }, { path: 'a' }] } });
    expect(() => webhook.validateCreate(t)).toThrow(
      'KubeadmConfigTemplate.bootstrap.cluster.x-k8s.io "baz" is invalid: spec.template.spec.files[1].path: Invalid value: {"path":"a"}: path property must be unique among all files',
    );
  });
});
