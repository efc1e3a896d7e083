import { HOOKS_API_VERSION, type DiscoveryResponse, type ExtensionHandler } from '@capi/api';
import {
  createExtensionServer,
  discoverExtension,
  type ExtensionConfig,
  type ExtensionServer,
  gvhToPath,
  HttpsExtensionTransport,
} from '@capi/runtime-client';
import { extensionUrl, formatDurationSeconds } from '../src/invoke';
import { isKnownHook } from '../src/catalog';
import { validateDiscoveryResponse } from '../src/discovery';

const handler = (over: Partial<ExtensionHandler> = {}): ExtensionHandler => ({
  name: 'can-update-machine',
  requestHook: { apiVersion: HOOKS_API_VERSION, hook: 'CanUpdateMachine' },
  ...over,
});
const response = (...handlers: ExtensionHandler[]): DiscoveryResponse => ({
  apiVersion: HOOKS_API_VERSION,
  kind: 'DiscoveryResponse',
  status: 'Success',
  handlers,
});

describe('catalog', () => {
  it('GVHToPath lower-cases hook and name', () => {
    expect(
      gvhToPath(
        { group: 'hooks.runtime.cluster.x-k8s.io', version: 'v1alpha1', hook: 'CanUpdateMachine' },
        'My-Handler',
      ),
    ).toBe('/hooks.runtime.cluster.x-k8s.io/v1alpha1/canupdatemachine/my-handler');
    expect(gvhToPath({ group: 'hooks.runtime.cluster.x-k8s.io', version: 'v1alpha1', hook: 'Discovery' })).toBe(
      '/hooks.runtime.cluster.x-k8s.io/v1alpha1/discovery',
    );
  });
  it('knows the three in-place hooks but not Discovery as a handler hook', () => {
    const g = { group: 'hooks.runtime.cluster.x-k8s.io', version: 'v1alpha1' };
    expect(
      ['CanUpdateMachine', 'CanUpdateMachineSet', 'UpdateMachine'].every((hook) => isKnownHook({ ...g, hook })),
    ).toBe(true);
    expect(isKnownHook({ ...g, hook: 'Discovery' })).toBe(false);
    expect(isKnownHook({ ...g, version: 'v1beta1', hook: 'UpdateMachine' })).toBe(false);
  });
});

describe('validateDiscoveryResponse', () => {
  it('defaults timeoutSeconds to 10 and failurePolicy to Fail, names get the ExtensionConfig suffix', () => {
    expect(validateDiscoveryResponse('ext', response(handler()))).toEqual([
      { name: 'can-update-machine.ext', requestHook: handler().requestHook, timeoutSeconds: 10, failurePolicy: 'Fail' },
    ]);
  });
  it.each([
    ['timeout 31', [handler({ timeoutSeconds: 31 })], 'must be between 0 and 30'],
    ['timeout -1', [handler({ timeoutSeconds: -1 })], 'must be between 0 and 30'],
    [
      'bad failurePolicy',
      [handler({ failurePolicy: 'Sometimes' as never })],
      'failurePolicy must be one of Fail, Ignore',
    ],
    ['duplicate names', [handler(), handler()], 'duplicate name for handler can-update-machine'],
    ['non DNS-1123 name', [handler({ name: 'Can_Update' })], 'DNS-1123'],
    [
      'unknown hook',
      [handler({ requestHook: { apiVersion: HOOKS_API_VERSION, hook: 'BeforeLunch' } })],
      'not known to the catalog',
    ],
    [
      'bad apiVersion',
      [handler({ requestHook: { apiVersion: 'a/b/c', hook: 'UpdateMachine' } })],
      'unexpected GroupVersion',
    ],
  ])('rejects %s', (_label, handlers, message) => {
    expect(() => validateDiscoveryResponse('ext', response(...handlers))).toThrow(message);
  });
  it('accepts timeouts 0 and 30 and failurePolicy Ignore', () => {
    const out = validateDiscoveryResponse(
      'ext',
      response(handler({ timeoutSeconds: 0 }), handler({ name: 'b', timeoutSeconds: 30, failurePolicy: 'Ignore' })),
    );
    expect(out.map((h) => [h.timeoutSeconds, h.failurePolicy])).toEqual([
      [undefined, 'Fail'],
      [30, 'Ignore'],
    ]);
    // omitempty: 0 is not written at all (the CRD's minimum is 1), not written as 0.
    expect(out[0]).not.toHaveProperty('timeoutSeconds');
  });
});

describe('clientConfig URL', () => {
  const gvh = { group: 'hooks.runtime.cluster.x-k8s.io', version: 'v1alpha1', hook: 'UpdateMachine' };
  it('service builds https://name.ns.svc:port/path', () => {
    expect(
      extensionUrl(
        { service: { name: 'webhook', namespace: 'ext-system', port: 9443, path: '/prefix' } },
        gvh,
        'update-machine',
      ),
    ).toBe(
      'https://webhook.ext-system.svc:9443/prefix/hooks.runtime.cluster.x-k8s.io/v1alpha1/updatemachine/update-machine',
    );
  });
  it('url path prefix is kept', () => {
    expect(extensionUrl({ url: 'https://host:8443/base/' }, gvh)).toBe(
      'https://host:8443/base/hooks.runtime.cluster.x-k8s.io/v1alpha1/updatemachine',
    );
  });
  it('http:// is rejected', () => {
    expect(() => extensionUrl({ url: 'http://host' }, gvh)).toThrow('expected https scheme, got http');
  });
  it('neither url nor service is rejected', () => {
    expect(() => extensionUrl({}, gvh)).toThrow('at least one of clientConfig.url or clientConfig.service');
  });
  it('formats Go durations', () => {
    expect([10, 1, 90].map(formatDurationSeconds)).toEqual(['10s', '1s', '1m30s']);
  });
});

describe('discoverExtension over HTTPS', () => {
  let server: ExtensionServer;
  const transport = new HttpsExtensionTransport();
  beforeAll(async () => {
    server = await createExtensionServer({
      tls: 'generate',
      handlers: [
        { hook: 'CanUpdateMachine', name: 'can-update-machine', handle: () => ({}) },
        {
          hook: 'UpdateMachine',
          name: 'update-machine',
          timeoutSeconds: 5,
          failurePolicy: 'Ignore',
          handle: () => ({}),
        },
      ],
    });
  });
  afterAll(async () => {
    transport.close();
    await server.close();
  });

  it('posts a DiscoveryRequest to /hooks.runtime.cluster.x-k8s.io/v1alpha1/discovery and fills status.handlers', async () => {
    const ec: ExtensionConfig = {
      apiVersion: 'runtime.cluster.x-k8s.io/v1beta2',
      kind: 'ExtensionConfig',
      metadata: { name: 'in-place' },
      spec: { clientConfig: { url: server.url, caBundle: server.caBundle } },
    };
    const out = await discoverExtension(ec, transport);
    const last = server.requests[server.requests.length - 1];
    expect(last.path).toBe('/hooks.runtime.cluster.x-k8s.io/v1alpha1/discovery');
    expect(last.body).toEqual({ apiVersion: HOOKS_API_VERSION, kind: 'DiscoveryRequest' });
    expect(out.status?.handlers?.map((h) => [h.name, h.timeoutSeconds, h.failurePolicy])).toEqual([
      ['can-update-machine.in-place', 10, 'Fail'],
      ['update-machine.in-place', 5, 'Ignore'],
    ]);
    expect(ec.status).toBeUndefined();
  });

  it('fails on an untrusted certificate', async () => {
    const other = await createExtensionServer({ tls: 'generate', handlers: [] });
    try {
      const ec: ExtensionConfig = {
        apiVersion: 'runtime.cluster.x-k8s.io/v1beta2',
        kind: 'ExtensionConfig',
        metadata: { name: 'x' },
        spec: { clientConfig: { url: other.url, caBundle: server.caBundle } },
      };
      await expect(discoverExtension(ec, transport)).rejects.toMatchObject({
        name: 'ExtensionCallError',
        reason: 'TransportError',
      });
    } finally {
      await other.close();
    }
  });
});
