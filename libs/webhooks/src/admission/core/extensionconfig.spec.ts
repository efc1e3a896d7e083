// Upstream core/webhooks/admission/extensionconfig_test.go (every table) and the messages of extensionconfig.go.
import type { ExtensionConfig } from '@capi/api';
import { FeatureGates } from '@capi/controller-runtime';
import { AdmissionError } from '../field-errors';
import { ExtensionConfigWebhook } from './extensionconfig';

type ClientConfig = ExtensionConfig['spec']['clientConfig'];

const ext = (clientConfig: ClientConfig, extra: Partial<ExtensionConfig['spec']> = {}, name = 'test-extension') =>
  ({
    apiVersion: 'runtime.cluster.x-k8s.io/v1beta2',
    kind: 'ExtensionConfig',
    metadata: { name },
    spec: { clientConfig, ...extra },
  }) as ExtensionConfig;

const enabled = new ExtensionConfigWebhook({ featureGates: new FeatureGates({ RuntimeSDK: true }) });
const disabled = new ExtensionConfigWebhook();

const service = { path: '/path/to/handler', port: 1, name: 'foo', namespace: 'bar' };
const withURL = () => ext({ url: 'https://extension-address.com' });
const withService = (s: Partial<typeof service> = {}, extra: Partial<ExtensionConfig['spec']> = {}) =>
  ext({ service: { ...service, ...s } }, extra);

/** Upstream defaults both objects before validating, so defaulted fields are not what fails. */
function validate(webhook: ExtensionConfigWebhook, inObj: ExtensionConfig, old?: ExtensionConfig) {
  webhook.default(inObj);
  if (old) webhook.default(old);
  return old ? webhook.validateUpdate(old, inObj) : webhook.validateCreate(inObj);
}

const errorOf = (run: () => unknown): AdmissionError => {
  try {
    run();
  } catch (e) {
    return e as AdmissionError;
  }
  throw new Error('expected an AdmissionError');
};

describe('ExtensionConfig webhook', () => {
  describe('TestExtensionConfigValidationFeatureGated', () => {
    const updated = () => ext({ url: 'https://a-new-extension-address.com' }, { namespaceSelector: {} });
    const base = () => ext({ url: 'https://extension-address.com' }, { namespaceSelector: {} });
    it.each([
      ['creation should fail if feature flag is disabled', false, false, true],
      ['update should fail if feature flag is disabled', true, false, true],
      ['creation should succeed if feature flag is enabled', false, true, false],
      ['update should succeed if feature flag is enabled', true, true, false],
    ])('%s', (_name, update, gate, expectErr) => {
      const webhook = gate ? enabled : disabled;
      const run = () => webhook.validate(update ? base() : undefined, update ? updated() : base());
      if (expectErr) expect(run).toThrow('spec: Forbidden: can be set only if the RuntimeSDK feature flag is enabled');
      else expect(run()).toEqual([]);
    });

    it('answers a disabled gate as controller-runtime answers a bare error: 403 Forbidden', () => {
      expect(errorOf(() => disabled.validateCreate(withURL())).status).toMatchObject({
        code: 403,
        reason: 'Forbidden',
        message: 'spec: Forbidden: can be set only if the RuntimeSDK feature flag is enabled',
      });
    });
  });

  it('TestExtensionConfigDefault: an empty namespaceSelector and service port 443', () => {
    const e = ext({ service: { name: 'name', namespace: 'namespace' } });
    enabled.default(e);
    expect(e.spec.namespaceSelector).toEqual({});
    expect(e.spec.clientConfig.service?.port).toBe(443);
    expect(enabled.validateCreate(e)).toEqual([]);
    const again = structuredClone(e);
    enabled.default(again);
    expect(again).toEqual(e);
  });

  it('does not add a service port to a URL client config', () => {
    const e = withURL();
    enabled.default(e);
    expect(e.spec.clientConfig).toEqual({ url: 'https://extension-address.com' });
  });

  describe('TestExtensionConfigValidate', () => {
    const badSelector = { matchExpressions: [{ key: 'foo', operator: 'bad-operator', values: ['foo', 'bar'] }] };
    it.each<[string, () => ExtensionConfig, (() => ExtensionConfig) | undefined, boolean, boolean]>([
      ['creation should fail if feature flag is disabled', withURL, undefined, false, true],
      [
        'update should fail if feature flag is disabled',
        () => ext({ url: 'https://a-in-extension-address.com' }),
        withURL,
        false,
        true,
      ],
      ['creation should fail if no Service Name is defined', () => withService({ name: '' }), undefined, true, true],
      [
        'creation should fail if extensionConfig Name violates Kubernetes naming rules',
        () => ext({ url: 'https://extension-address.com' }, {}, 'bad.name'),
        undefined,
        true,
        true,
      ],
      [
        'creation should fail if Service Name violates Kubernetes naming rules',
        () => withService({ name: 'NOT_ALLOWED' }),
        undefined,
        true,
        true,
      ],
      [
        'creation should fail if no Service Namespace is defined',
        () => withService({ namespace: '' }),
        undefined,
        true,
        true,
      ],
      [
        'creation should fail if Service Namespace violates Kubernetes naming rules',
        () => withService({ namespace: 'INVALID' }),
        undefined,
        true,
        true,
      ],
      [
        'creation should succeed if NamespaceSelector is correctly defined',
        () => withService({}, { namespaceSelector: { matchExpressions: [{ key: 'foo', operator: 'Exists' }] } }),
        undefined,
        true,
        false,
      ],
      [
        'creation should fail if NamespaceSelector is incorrectly defined',
        () => withService({}, { namespaceSelector: badSelector }),
        undefined,
        true,
        true,
      ],
      ['update should fail if URL is invalid', () => ext({ url: 'https//extension-address.com' }), withURL, true, true],
      [
        'update should fail if URL scheme is invalid',
        () => ext({ url: 'unknown://extension-address.com' }),
        withURL,
        true,
        true,
      ],
      ['update should fail if URL and Service are both nil', () => ext({ url: '' }), withURL, true, true],
      [
        'update should fail if both URL and Service are defined',
        () => ext({ url: 'https://extension-address.com', service }),
        () => withService(),
        true,
        true,
      ],
      [
        'update should fail if Service Path is invalid',
        () => withService({ path: 'https://example.com' }),
        () => withService(),
        true,
        true,
      ],
      [
        'update should fail if Service Port is invalid',
        () => withService({ port: 90000 }),
        () => withService(),
        true,
        true,
      ],
      ['update should pass if updated Extension is valid', () => withService(), () => withService(), true, false],
    ])('%s', (_name, inObj, old, gate, expectErr) => {
      const run = () => validate(gate ? enabled : disabled, inObj(), old?.());
      if (expectErr) expect(run).toThrow(AdmissionError);
      else expect(run()).toEqual([]);
    });
  });

  describe("upstream's messages", () => {
    const invalid = (detail: string, name = 'test-extension') =>
      `ExtensionConfig.runtime.cluster.x-k8s.io ${JSON.stringify(name)} is invalid: ${detail}`;
    it.each<[string, () => ExtensionConfig, string]>([
      [
        'an http:// URL',
        () => ext({ url: 'http://extension-address.com' }),
        invalid(
          `spec.clientConfig.url: Invalid value: "http://extension-address.com": 'https' is the only allowed URL scheme, e.g. https://example.com`,
        ),
      ],
      [
        'a URL that does not parse',
        () => ext({ url: 'https//extension-address.com' }),
        invalid(
          'spec.clientConfig.url: Invalid value: "https//extension-address.com": must be a valid URL, e.g. https://example.com: parse "https//extension-address.com": invalid URI for request',
        ),
      ],
      [
        'neither url nor service',
        () => ext({ url: '' }),
        invalid('spec.clientConfig: Required value: either url or service must be defined'),
      ],
      [
        'both url and service',
        () => ext({ url: 'https://extension-address.com', service }),
        invalid('spec.clientConfig: Forbidden: only one of url or service can be defined'),
      ],
      [
        'an ExtensionConfig name with dots',
        () => ext({ url: 'https://extension-address.com' }, {}, 'bad.name'),
        invalid(
          'metadata.name: Invalid value: "bad.name": ExtensionConfig name should be a valid DNS1123 label name: [must not contain dots]',
          'bad.name',
        ),
      ],
      [
        'an empty service name',
        () => withService({ name: '' }),
        invalid(
          '[spec.clientConfig.service.name: Required value: must not be empty, spec.clientConfig.service.name: Invalid value: "": ' +
            "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')]",
        ),
      ],
      [
        'a service path that is a URL',
        () => withService({ path: 'https://example.com' }),
        invalid(
          'spec.clientConfig.service.path: Invalid value: "https://example.com": must start with "/" to be a valid URL path',
        ),
      ],
      [
        'a service path that does not parse',
        () => withService({ path: 'a b' }),
        invalid(
          '[spec.clientConfig.service.path: Invalid value: "a b": must be a valid URL path e.g. /path/to/hook: parse "a b": invalid URI for request, ' +
            'spec.clientConfig.service.path: Invalid value: "a b": must start with "/" to be a valid URL path]',
        ),
      ],
      [
        'a service port out of range',
        () => withService({ port: 90000 }),
        invalid('spec.clientConfig.service.port: Invalid value: 90000: must be between 1 and 65535, inclusive'),
      ],
      [
        'an invalid namespaceSelector',
        () =>
          withService(
            {},
            {
              namespaceSelector: {
                matchExpressions: [{ key: 'foo', operator: 'bad-operator', values: ['foo', 'bar'] }],
              },
            },
          ),
        invalid(
          'spec.namespaceSelector: Invalid value: {"matchExpressions":[{"key":"foo","operator":"bad-operator","values":["foo","bar"]}]}: "bad-operator" is not a valid label selector operator',
        ),
      ],
    ])('%s', (_name, obj, message) => {
      const err = errorOf(() => validate(enabled, obj()));
      expect(err.status).toMatchObject({ code: 422, reason: 'Invalid', message });
    });

    it('requires a namespaceSelector when not defaulted', () => {
      expect(() => enabled.validateCreate(withURL())).toThrow(
        'spec.namespaceSelector: Required value: must be defined',
      );
    });
  });
});
