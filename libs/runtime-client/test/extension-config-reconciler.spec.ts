import type { Client, InformerCache } from '@capi/controller-runtime';
import {
  createExtensionServer,
  type ExtensionConfig,
  extensionConfigControllerOptions,
  ExtensionConfigReconciler,
  ExtensionRegistry,
  type ExtensionServer,
  HttpsExtensionTransport,
  singleExtension,
  WarmUpDiscoveryError,
} from '@capi/runtime-client';
import { FakeKubeClient } from '../src/testing/fake-kube-client';

const ref = (name: string) => ({ apiVersion: 'runtime.cluster.x-k8s.io/v1beta2', kind: 'ExtensionConfig', name });

describe('ExtensionConfigReconciler', () => {
  let server: ExtensionServer;
  let kube: FakeKubeClient;
  let registry: ExtensionRegistry;
  let reconciler: ExtensionConfigReconciler;
  const transport = new HttpsExtensionTransport();
  const now = new Date('2026-01-01T00:00:00Z');

  beforeAll(async () => {
    server = await createExtensionServer({
      tls: 'generate',
      handlers: [
        { hook: 'CanUpdateMachine', name: 'can-update-machine', handle: () => ({}) },
        { hook: 'UpdateMachine', name: 'update-machine', handle: () => ({}) },
      ],
    });
  });
  afterAll(async () => {
    transport.close();
    await server.close();
  });
  beforeEach(() => {
    kube = new FakeKubeClient();
    registry = new ExtensionRegistry();
    reconciler = new ExtensionConfigReconciler(kube as unknown as Client, registry, transport, {
      now: () => now,
      rediscoveryIntervalMs: 60_000,
    });
  });

  const extensionConfig = (
    name: string,
    extra: Partial<ExtensionConfig['metadata']> = {},
    caBundle: string | undefined = server.caBundle,
  ): ExtensionConfig => ({
    apiVersion: 'runtime.cluster.x-k8s.io/v1beta2',
    kind: 'ExtensionConfig',
    metadata: { name, ...extra },
    spec: { clientConfig: { url: server.url, ...(caBundle ? { caBundle } : {}) }, settings: { k: 'v' } },
  });

  it('requeues while the registry is not warmed up', async () => {
    expect(await reconciler.reconcile({ name: 'x' })).toEqual({ requeueAfterMs: 10_000 });
  });

  it('warm-up discovers all ExtensionConfigs, writes status and marks the registry ready', async () => {
    await kube.create(extensionConfig('in-place'));
    await kube.create(extensionConfig('broken', {}, Buffer.from('not a pem').toString('base64')));
    const { errors } = await reconciler.warmUp();
    expect(registry.isReady()).toBe(true);
    expect(registry.list().map((r) => r.name)).toEqual(['can-update-machine.in-place', 'update-machine.in-place']);
    expect(errors).toHaveLength(1);
    const stored = await kube.get<ExtensionConfig>(ref('in-place'));
    expect(stored.status?.handlers?.map((h) => h.name)).toEqual([
      'can-update-machine.in-place',
      'update-machine.in-place',
    ]);
    expect(stored.status?.conditions).toEqual([
      {
        type: 'Discovered',
        status: 'True',
        reason: 'Discovered',
        observedGeneration: 1,
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
    ]);
    const broken = await kube.get<ExtensionConfig>(ref('broken'));
    expect(broken.status?.conditions?.[0]).toMatchObject({
      type: 'Discovered',
      status: 'False',
      reason: 'NotDiscovered',
    });
    expect(broken.status?.conditions?.[0].message).toMatch(/^Error in discovery: /);
  });

  it('warm-up with requireAll throws on a failed discovery and leaves the registry not ready', async () => {
    await kube.create(extensionConfig('in-place'));
    await kube.create(extensionConfig('broken', {}, Buffer.from('not a pem').toString('base64')));
    const err = await reconciler.warmUp({ requireAll: true }).catch((e) => e);
    expect(err).toBeInstanceOf(WarmUpDiscoveryError);
    expect(err.extensionConfigs).toEqual(['broken']);
    expect(err.message).toMatch(/^discovery failed for 1 ExtensionConfig\(s\) \(broken\): /);
    expect(registry.isReady()).toBe(false);
    await expect(reconciler.warmUp({ requireAll: false })).resolves.toMatchObject({ errors: [expect.any(Error)] });
    expect(registry.isReady()).toBe(true);
  });

  it('reconcile registers, requeues for re-discovery, and unregisters on delete', async () => {
    reconciler = new ExtensionConfigReconciler(kube as unknown as Client, registry, transport, {
      now: () => now,
      rediscoveryIntervalMs: 60_000,
    });
    await reconciler.warmUp();
    await kube.create(extensionConfig('late'));
    expect(await reconciler.reconcile({ name: 'late' })).toEqual({ requeueAfterMs: 60_000 });
    expect(registry.get('update-machine.late')).toMatchObject({
      settings: { k: 'v' },
      timeoutSeconds: 10,
      failurePolicy: 'Fail',
    });
    // Re-discovery finding the same handlers writes no status.
    // First reconcile: Paused=False NotPaused, then handlers + Discovered.
    const statusWrites = () => kube.patches.filter((p) => p.ref.name === 'late' && p.subresource === 'status').length;
    expect(statusWrites()).toBe(2);
    expect(await reconciler.reconcile({ name: 'late' })).toEqual({ requeueAfterMs: 60_000 });
    expect(statusWrites()).toBe(2);
    kube.objects.clear();
    expect(await reconciler.reconcile({ name: 'late' })).toEqual({});
    expect(registry.list()).toEqual([]);
  });

  it('paused ExtensionConfig is not discovered and gets Paused=True; unpaused it gets Paused=False NotPaused and is discovered', async () => {
    await reconciler.warmUp();
    await kube.create(extensionConfig('paused', { annotations: { 'cluster.x-k8s.io/paused': '' } }));
    expect(await reconciler.reconcile({ name: 'paused' })).toEqual({});
    expect(registry.list()).toEqual([]);
    const paused = await kube.get<ExtensionConfig>(ref('paused'));
    expect(paused.status?.conditions).toEqual([
      {
        type: 'Paused',
        status: 'True',
        reason: 'Paused',
        message: 'ExtensionConfig has the cluster.x-k8s.io/paused annotation',
        observedGeneration: 1,
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
    ]);
    // A repeat writes nothing.
    const writes = kube.patches.length;
    await reconciler.reconcile({ name: 'paused' });
    expect(kube.patches).toHaveLength(writes);

    await kube.patch(ref('paused'), 'merge', { metadata: { annotations: { 'cluster.x-k8s.io/paused': null } } });
    await reconciler.reconcile({ name: 'paused' });
    const unpaused = await kube.get<ExtensionConfig>(ref('paused'));
    expect(unpaused.status?.conditions?.map((c) => [c.type, c.status, c.reason])).toEqual([
      ['Paused', 'False', 'NotPaused'],
      ['Discovered', 'True', 'Discovered'],
    ]);
    expect(registry.list().map((r) => r.name)).toEqual(['can-update-machine.paused', 'update-machine.paused']);
  });

  it('injects the CA from the annotated Secret before discovery', async () => {
    await reconciler.warmUp();
    await kube.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'ext-cert', namespace: 'ext' },
      data: { 'ca.crt': server.caBundle },
    });
    await kube.create(
      extensionConfig(
        'injected',
        { annotations: { 'runtime.cluster.x-k8s.io/inject-ca-from-secret': 'ext/ext-cert' } },
        '',
      ),
    );
    await reconciler.reconcile({ name: 'injected' });
    const stored = await kube.get<ExtensionConfig>(ref('injected'));
    expect(stored.spec.clientConfig.caBundle).toBe(server.caBundle);
    expect(stored.status?.conditions?.find((c) => c.type === 'Discovered')).toMatchObject({
      status: 'True',
      observedGeneration: 2,
    });
    expect(registry.list().map((r) => r.extensionConfigName)).toEqual(['injected', 'injected']);
    expect(
      reconciler.requestsForSecret({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { namespace: 'ext', name: 'ext-cert' },
      }),
    ).toEqual([{ name: 'injected' }]);
    expect(extensionConfigControllerOptions(reconciler).watches![0].cache).toBeUndefined();
    const secretCache = {} as InformerCache;
    const opts = extensionConfigControllerOptions(reconciler, secretCache);
    expect(opts.watches![0].cache).toBe(secretCache);
    expect(opts.for).toEqual({ apiVersion: 'runtime.cluster.x-k8s.io/v1beta2', kind: 'ExtensionConfig' });
    expect(
      opts.watches![0].map(
        { apiVersion: 'v1', kind: 'Secret', metadata: { namespace: 'ext', name: 'other' } },
        {} as never,
      ),
    ).toEqual([]);
  });

  it.each([
    ['ext-cert', 'must be in the form <namespace>/<name>'],
    ['ext/missing', 'failed to get secret "ext/missing"'],
    ['ext/no-key', 'does not contain a "ca.crt" entry'],
  ])('bad CA Secret reference %s -> clear error and NotDiscovered', async (annotation, message) => {
    await reconciler.warmUp();
    await kube.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'no-key', namespace: 'ext' },
      data: { 'tls.crt': 'eA==' },
    });
    await kube.create(
      extensionConfig('bad-ca', { annotations: { 'runtime.cluster.x-k8s.io/inject-ca-from-secret': annotation } }),
    );
    await expect(reconciler.reconcile({ name: 'bad-ca' })).rejects.toThrow(message);
    const stored = await kube.get<ExtensionConfig>(ref('bad-ca'));
    expect(stored.status?.conditions?.find((c) => c.type === 'Discovered')).toMatchObject({
      status: 'False',
      reason: 'NotDiscovered',
    });
  });

  it('a failed re-discovery keeps the previous registrations and status.handlers', async () => {
    await reconciler.warmUp();
    await kube.create(extensionConfig('flaky'));
    await reconciler.reconcile({ name: 'flaky' });
    await kube.patch(ref('flaky'), 'merge', { spec: { clientConfig: { url: 'https://127.0.0.1:1' } } });
    await expect(reconciler.reconcile({ name: 'flaky' })).rejects.toThrow('failed to discover ExtensionConfig flaky');
    expect(registry.list()).toHaveLength(2);
    const stored = await kube.get<ExtensionConfig>(ref('flaky'));
    expect(stored.status?.handlers).toHaveLength(2);
    expect(stored.status?.conditions?.find((c) => c.type === 'Discovered')).toMatchObject({
      status: 'False',
      reason: 'NotDiscovered',
    });
  });
});

describe('singleExtension', () => {
  it('errors with "only one hook is supported" for two handlers', () => {
    expect(() => singleExtension('UpdateMachine', ['a.x', 'b.y'])).toThrow(
      'found multiple UpdateMachine hooks (a.x,b.y): only one hook is supported',
    );
    expect(singleExtension('CanUpdateMachine', [])).toBeUndefined();
    expect(singleExtension('CanUpdateMachineSet', ['a.x'])).toBe('a.x');
  });
});
