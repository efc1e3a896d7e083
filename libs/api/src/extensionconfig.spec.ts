import { validateExtensionConfig } from './extensionconfig';

const withClientConfig = (clientConfig: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  ({ spec: { clientConfig, ...extra } }) as Parameters<typeof validateExtensionConfig>[0];

describe('validateExtensionConfig', () => {
  it('accepts an https url or a service', () => {
    expect(validateExtensionConfig(withClientConfig({ url: 'https://127.0.0.1:8443/prefix' }))).toEqual([]);
    expect(
      validateExtensionConfig(withClientConfig({ service: { namespace: 'ns', name: 'svc', port: 443, path: '/p' } })),
    ).toEqual([]);
  });
  it('requires exactly one of url and service', () => {
    expect(validateExtensionConfig(withClientConfig({}))).toEqual([
      'spec.clientConfig: Invalid value: exactly one of url or service must be specified',
    ]);
    expect(
      validateExtensionConfig(withClientConfig({ url: 'https://x', service: { namespace: 'n', name: 's' } })),
    ).toHaveLength(1);
  });
  it('rejects non-https, user info, fragments and queries', () => {
    expect(validateExtensionConfig(withClientConfig({ url: 'http://x' }))).toEqual([
      'spec.clientConfig.url: Invalid value: "http://x": expected https scheme',
    ]);
    expect(validateExtensionConfig(withClientConfig({ url: 'https://u:p@x/?a=b#f' }))).toHaveLength(3);
    expect(validateExtensionConfig(withClientConfig({ url: 'not a url' }))[0]).toMatch(/must be a valid URL/);
  });
  it('validates service fields and the namespace selector', () => {
    const errors = validateExtensionConfig(
      withClientConfig(
        { service: { namespace: '', name: 's', port: 70000, path: 'p' } },
        { namespaceSelector: { matchExpressions: [{ key: 'a', operator: 'Bogus' }] } },
      ),
    );
    expect(errors).toEqual([
      'spec.clientConfig.service.namespace: Required value',
      'spec.clientConfig.service.port: Invalid value: 70000: must be between 1 and 65535, inclusive',
      'spec.clientConfig.service.path: Invalid value: "p": must start with "/"',
      'spec.namespaceSelector: "Bogus" is not a valid label selector operator',
    ]);
  });
});
