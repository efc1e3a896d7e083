// ExtensionConfigModule on envtest (embedded API server over HTTPS) with real extension servers.
import { Inject, Injectable, Module } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { KubeConfig } from '@kubernetes/client-node';
import { encodePatch } from '@capi/api';
import type { Registry } from 'prom-client';
import type { KubeObject } from '@capi/apimachinery';
import {
  ControllerRuntimeModule,
  KUBE_CLIENT,
  MANAGER,
  METRICS_REGISTRY,
  type Client,
  type Manager,
} from '@capi/controller-runtime';
import { settle, startEnvtest, type Envtest } from '@capi/envtest';
import { managerSecretCacheOptions } from '@capi/certs';
import {
  createExtensionServer,
  EXTENSION_REGISTRY,
  EXTENSION_REGISTRY_READY_CHECK,
  type ExtensionConfig,
  ExtensionConfigController,
  ExtensionConfigModule,
  type ExtensionRegistry,
  type ExtensionServer,
  RUNTIME_CLIENT,
  type RuntimeClient,
  secretMetadataCache,
} from '@capi/runtime-client';
import { type NamedReadinessCheck } from '../../src/module/extension-config.module';

const API = 'runtime.cluster.x-k8s.io/v1beta2';
const ecRef = (name: string) => ({ apiVersion: API, kind: 'ExtensionConfig', name });

/** Polls until `cond` is truthy (no fixed sleeps racing the controller). */
async function eventually<T>(cond: () => Promise<T | undefined | false>, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await cond();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Another controller module of the app: it must see the same runtime client through the global module. */
@Injectable()
class HookCaller {
  constructor(@Inject(RUNTIME_CLIENT) readonly runtimeClient: RuntimeClient) {}
}
@Module({ providers: [HookCaller] })
class ConsumerModule {}

describe('ExtensionConfigModule (envtest)', () => {
  let env: Envtest;
  let ext: ExtensionServer;
  let app: TestingModule;
  let client: Client;
  let registry: ExtensionRegistry;

  const extensionConfig = (
    name: string,
    clientConfig: ExtensionConfig['spec']['clientConfig'],
    annotations?: Record<string, string>,
  ): ExtensionConfig => ({
    apiVersion: API,
    kind: 'ExtensionConfig',
    metadata: { name, ...(annotations ? { annotations } : {}) },
    spec: { clientConfig },
  });
  const getEc = (name: string) => client.get<ExtensionConfig>(ecRef(name));
  const discovered = (ec: ExtensionConfig) => ec.status?.conditions?.find((c) => c.type === 'Discovered');

  beforeAll(async () => {
    env = await startEnvtest();
    ext = await createExtensionServer({
      tls: 'generate',
      handlers: [
        {
          hook: 'CanUpdateMachine',
          name: 'can-update-machine',
          handle: () => ({
            machinePatch: encodePatch('JSONPatch', [{ op: 'replace', path: '/spec/version', value: 'v1.31.1' }]),
          }),
        },
        {
          hook: 'UpdateMachine',
          name: 'update-machine',
          failurePolicy: 'Ignore',
          handle: () => ({ retryAfterSeconds: 5 }),
        },
      ],
    });
    const kubeconfig = () => {
      const kc = new KubeConfig();
      kc.loadFromString(env.kubeconfig);
      return kc;
    };
    // Exists before start-up: the warm-up (not a reconcile) must discover it.
    const bootstrapClient = await Test.createTestingModule({
      imports: [ControllerRuntimeModule.forRoot({ kubeconfig, autoStart: false })],
    }).compile();
    await bootstrapClient
      .get<Client>(KUBE_CLIENT)
      .create(extensionConfig('pre-existing', { url: ext.url, caBundle: ext.caBundle }));
    await bootstrapClient.close();

    app = await Test.createTestingModule({
      imports: [
        // Secrets as the manager caches them: only cluster-labelled ones, so not an extension's CA Secret.
        ControllerRuntimeModule.forRoot({ kubeconfig, ...managerSecretCacheOptions() }),
        ExtensionConfigModule.forRoot({ reconciler: { notReadyRequeueMs: 100 }, warmUp: { retryIntervalMs: 50 } }),
        ConsumerModule,
      ],
    }).compile();
    await app.init();
    client = app.get<Client>(KUBE_CLIENT);
    registry = app.get<ExtensionRegistry>(EXTENSION_REGISTRY);
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await ext?.close();
    await env?.stop();
  });

  it('registers the extensionconfig controller with the Manager and warms the registry up from existing ExtensionConfigs', async () => {
    expect(app.get<Manager>(MANAGER).controllerNames()).toContain('extensionconfig');
    const outcome = await eventually(async () => app.get(ExtensionConfigController).warmUpDone, 'warm-up started');
    expect(await outcome).toMatchObject({ ok: true, extensionErrors: [] });
    expect(registry.isReady()).toBe(true);
    expect(registry.list().map((r) => r.name)).toEqual([
      'can-update-machine.pre-existing',
      'update-machine.pre-existing',
    ]);
    const ec = await getEc('pre-existing');
    expect(ec.status?.handlers?.map((h) => h.name)).toEqual([
      'can-update-machine.pre-existing',
      'update-machine.pre-existing',
    ]);
    expect(discovered(ec)).toMatchObject({ status: 'True', reason: 'Discovered' });
    const check = app.get<NamedReadinessCheck>(EXTENSION_REGISTRY_READY_CHECK);
    expect(check.name).toBe('extension-registry-warmed-up');
    expect(check.check()).toBe(true);
  });

  it("records Runtime SDK metrics on the app's METRICS_REGISTRY (upstream names)", async () => {
    await eventually(async () => registry.isReady(), 'warm');
    const text = await app.get<Registry>(METRICS_REGISTRY).metrics();
    expect(text).toMatch(
      /capi_runtime_sdk_requests_total\{code="200",host="[^"]+",group="hooks.runtime.cluster.x-k8s.io",version="v1alpha1",hook="Discovery",status="Success"\} \d+/,
    );
    expect(text).toContain('capi_runtime_sdk_request_duration_seconds_bucket');
  });

  it('a new ExtensionConfig gets status.handlers and Discovered=True, and the shared runtime client calls its handlers', async () => {
    await client.create(extensionConfig('in-place', { url: ext.url, caBundle: ext.caBundle }));
    const ec = await eventually(async () => {
      const e = await getEc('in-place');
      return discovered(e)?.status === 'True' ? e : undefined;
    }, 'in-place discovered');
    expect(ec.status?.handlers).toEqual([
      {
        name: 'can-update-machine.in-place',
        requestHook: { apiVersion: 'hooks.runtime.cluster.x-k8s.io/v1alpha1', hook: 'CanUpdateMachine' },
        timeoutSeconds: 10,
        failurePolicy: 'Fail',
      },
      {
        name: 'update-machine.in-place',
        requestHook: { apiVersion: 'hooks.runtime.cluster.x-k8s.io/v1alpha1', hook: 'UpdateMachine' },
        timeoutSeconds: 10,
        failurePolicy: 'Ignore',
      },
    ]);
    await eventually(async () => registry.get('update-machine.in-place'), 'registry has in-place handlers');

    const runtimeClient = app.get(HookCaller).runtimeClient;
    expect(runtimeClient).toBe(app.get(RUNTIME_CLIENT));
    const forObject = { metadata: { namespace: 'default' } };
    expect(await runtimeClient.getAllExtensions('CanUpdateMachine', forObject)).toEqual([
      'can-update-machine.in-place',
      'can-update-machine.pre-existing',
    ]);
    const machine = {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Machine',
      metadata: { name: 'm', namespace: 'default' },
      spec: {},
    };
    const res = await runtimeClient.callExtension('CanUpdateMachine', forObject, 'can-update-machine.in-place', {
      current: { machine, infrastructureMachine: { object: {} }, bootstrapConfig: { object: {} } },
      desired: { machine, infrastructureMachine: { object: {} }, bootstrapConfig: { object: {} } },
    } as never);
    expect(res.status).toBe('Success');
    expect(res.machinePatch).toEqual(
      encodePatch('JSONPatch', [{ op: 'replace', path: '/spec/version', value: 'v1.31.1' }]),
    );
    expect(ext.requests.some((r) => r.path.endsWith('/canupdatemachine/can-update-machine'))).toBe(true);
  });

  it('hook calls and a re-discovery that finds the same handlers write no ExtensionConfig status (counted at the server)', async () => {
    await eventually(async () => registry.get('can-update-machine.in-place'), 'in-place registered');
    await settle(app.get<Manager>(MANAGER), ['extensionconfig']);
    await env.resetRequests();
    const runtimeClient = app.get(HookCaller).runtimeClient;
    const machine = {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Machine',
      metadata: { name: 'm', namespace: 'default' },
      spec: {},
    };
    const request = {
      current: { machine, infrastructureMachine: { object: {} }, bootstrapConfig: { object: {} } },
      desired: { machine, infrastructureMachine: { object: {} }, bootstrapConfig: { object: {} } },
    };
    for (let i = 0; i < 10; i++)
      await runtimeClient.callExtension(
        'CanUpdateMachine',
        { metadata: { namespace: 'default' } },
        'can-update-machine.in-place',
        request as never,
      );
    const discoveries = ext.requests.filter((r) => r.path.endsWith('/discovery')).length;
    await client.patch(ecRef('in-place'), 'merge', { metadata: { annotations: { 'test/poke': '1' } } });
    await eventually(
      async () => ext.requests.filter((r) => r.path.endsWith('/discovery')).length > discoveries,
      're-discovery',
    );
    await settle(app.get<Manager>(MANAGER), ['extensionconfig']);
    const writes = Object.entries((await env.countRequests()).byVerbResource).filter(
      ([k]) =>
        k.startsWith('patch runtime.cluster.x-k8s.io/extensionconfigs') ||
        k.startsWith('apply runtime.cluster.x-k8s.io/extensionconfigs'),
    );
    expect(writes).toEqual([['patch runtime.cluster.x-k8s.io/extensionconfigs', 1]]); // our poke only
  });

  it('a paused ExtensionConfig gets Paused=True and is not discovered; unpaused: Paused=False NotPaused, then Discovered', async () => {
    await client.create(
      extensionConfig('paused', { url: ext.url, caBundle: ext.caBundle }, { 'cluster.x-k8s.io/paused': '' }),
    );
    const paused = await eventually(async () => {
      const c = (await getEc('paused')).status?.conditions?.find((x) => x.type === 'Paused');
      return c?.status === 'True' ? c : undefined;
    }, 'paused Paused=True');
    expect(paused).toMatchObject({
      reason: 'Paused',
      message: 'ExtensionConfig has the cluster.x-k8s.io/paused annotation',
      observedGeneration: 1,
    });
    expect(discovered(await getEc('paused'))).toBeUndefined();
    expect(registry.list().some((r) => r.extensionConfigName === 'paused')).toBe(false);

    await client.patch(ecRef('paused'), 'merge', { metadata: { annotations: { 'cluster.x-k8s.io/paused': null } } });
    const ec = await eventually(async () => {
      const e = await getEc('paused');
      return discovered(e)?.status === 'True' ? e : undefined;
    }, 'unpaused and discovered');
    expect(ec.status?.conditions?.find((x) => x.type === 'Paused')).toMatchObject({
      status: 'False',
      reason: 'NotPaused',
    });
    await eventually(async () => registry.get('update-machine.paused'), 'unpaused registered');
    await client.delete(ecRef('paused'));
  });

  it('serves runtime.cluster.x-k8s.io/v1alpha1 too: an ExtensionConfig created at v1alpha1 is stored once and discovered', async () => {
    const v1alpha1 = { apiVersion: 'runtime.cluster.x-k8s.io/v1alpha1', kind: 'ExtensionConfig', name: 'old-manifest' };
    await client.create({
      apiVersion: v1alpha1.apiVersion,
      kind: 'ExtensionConfig',
      metadata: { name: 'old-manifest' },
      spec: { clientConfig: { url: ext.url, caBundle: ext.caBundle } },
    });
    const ec = await eventually(async () => {
      const e = await getEc('old-manifest');
      return discovered(e)?.status === 'True' ? e : undefined;
    }, 'old-manifest discovered through v1beta2');
    expect(ec.apiVersion).toBe(API);
    await eventually(async () => registry.get('update-machine.old-manifest'), 'old-manifest registered');
    const old = await client.get<ExtensionConfig>(v1alpha1);
    expect(old.apiVersion).toBe('runtime.cluster.x-k8s.io/v1alpha1');
    expect(old.spec).toEqual(ec.spec);
    expect(old.metadata.uid).toBe(ec.metadata.uid);
    // A v1alpha1 write of the spec is seen at v1beta2 (one stored object).
    await client.patch(v1alpha1, 'merge', { spec: { settings: { from: 'v1alpha1' } } });
    expect((await getEc('old-manifest')).spec.settings).toEqual({ from: 'v1alpha1' });
    await client.delete(ecRef('old-manifest'));
  });

  it('deleting an ExtensionConfig removes its handlers from the registry', async () => {
    await eventually(async () => registry.get('can-update-machine.in-place'), 'in-place registered');
    await client.delete(ecRef('in-place'));
    await eventually(
      async () => registry.list().every((r) => r.extensionConfigName !== 'in-place'),
      'in-place handlers removed',
    );
    expect(registry.list().map((r) => r.extensionConfigName)).toEqual(['pre-existing', 'pre-existing']);
  });

  it('an extension whose certificate the caBundle does not trust gets Discovered=False with reason NotDiscovered', async () => {
    const other = await createExtensionServer({
      tls: 'generate',
      handlers: [{ hook: 'CanUpdateMachine', name: 'x', handle: () => ({}) }],
    });
    try {
      // A valid PEM, but of another server's self-signed certificate.
      await client.create(extensionConfig('bad-ca', { url: ext.url, caBundle: other.caBundle }));
      const cond = await eventually(async () => {
        const c = discovered(await getEc('bad-ca'));
        return c?.status === 'False' ? c : undefined;
      }, 'bad-ca NotDiscovered');
      expect(cond.reason).toBe('NotDiscovered');
      expect(cond.message).toMatch(/^Error in discovery: /);
      expect(registry.list().some((r) => r.extensionConfigName === 'bad-ca')).toBe(false);
    } finally {
      await other.close();
      await client.delete(ecRef('bad-ca'));
    }
  });

  it('a handler discovered with timeoutSeconds 0 is stored without timeoutSeconds (omitempty; the CRD minimum is 1)', async () => {
    const zero = await createExtensionServer({
      tls: 'generate',
      handlers: [{ hook: 'UpdateMachine', name: 'update-machine', timeoutSeconds: 0, handle: () => ({}) }],
    });
    try {
      await client.create(extensionConfig('zero-timeout', { url: zero.url, caBundle: zero.caBundle }));
      const ec = await eventually(async () => {
        const e = await getEc('zero-timeout');
        return discovered(e) ? e : undefined;
      }, 'zero-timeout has a Discovered condition');
      expect(discovered(ec)).toMatchObject({ status: 'True', reason: 'Discovered' });
      expect(ec.status?.handlers).toEqual([
        {
          name: 'update-machine.zero-timeout',
          requestHook: { apiVersion: 'hooks.runtime.cluster.x-k8s.io/v1alpha1', hook: 'UpdateMachine' },
          failurePolicy: 'Fail',
        },
      ]);
      // The call then uses the default timeout, like a handler that declared none.
      expect(
        await eventually(async () => registry.get('update-machine.zero-timeout'), 'zero-timeout registered'),
      ).toMatchObject({ timeoutSeconds: 10 });
    } finally {
      await zero.close();
      await client.delete(ecRef('zero-timeout'));
    }
  });

  it('injects the CA from the annotated Secret, and re-discovers when the Secret appears', async () => {
    await client.create(
      extensionConfig(
        'from-secret',
        { url: ext.url },
        { 'runtime.cluster.x-k8s.io/inject-ca-from-secret': 'default/extension-ca' },
      ),
    );
    const missing = await eventually(async () => {
      const c = discovered(await getEc('from-secret'));
      return c?.status === 'False' ? c : undefined;
    }, 'from-secret NotDiscovered while the Secret is missing');
    expect(missing.reason).toBe('NotDiscovered');
    expect(missing.message).toMatch(/failed to get secret "default\/extension-ca"/);

    await client.create<KubeObject>({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'extension-ca', namespace: 'default' },
      data: { 'ca.crt': ext.caBundle },
    });
    const ec = await eventually(
      async () => {
        const e = await getEc('from-secret');
        return discovered(e)?.status === 'True' ? e : undefined;
      },
      'from-secret discovered after the Secret was created',
      10_000,
    );
    expect(ec.spec.clientConfig.caBundle).toBe(ext.caBundle);
    expect(ec.status?.handlers?.map((h) => h.name)).toEqual([
      'can-update-machine.from-secret',
      'update-machine.from-secret',
    ]);
    await eventually(async () => registry.get('can-update-machine.from-secret'), 'from-secret registered');
    // The manager's cache does not hold the (unlabelled) CA Secret: the watch above ran on a cache of its own.
    const manager = app.get<Manager>(MANAGER);
    expect(await manager.secretCachingClient.tryGet(secretRef('extension-ca'))).toBeUndefined();
  });

  it("watches Secrets in a cache of their metadata: no data, no managedFields (upstream's partialSecretCache)", async () => {
    await client.create<KubeObject>({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'metadata-only', namespace: 'default', labels: { a: 'b' } },
      data: { 'ca.crt': ext.caBundle },
    });
    const cache = secretMetadataCache(client, 'default');
    cache.start();
    try {
      const held = await cache.get(secretRef('metadata-only'));
      expect(held).toEqual({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: expect.objectContaining({ name: 'metadata-only', namespace: 'default', labels: { a: 'b' } }),
      });
      expect(held.metadata.managedFields).toBeUndefined();
    } finally {
      await cache.stop();
    }
  });
});

const secretRef = (name: string) => ({ apiVersion: 'v1', kind: 'Secret', namespace: 'default', name });
