// Registry warm-up against envtest: every ExtensionConfig must be discovered before the registry is ready (upstream).
import { Test, type TestingModule } from '@nestjs/testing';
import { KubeConfig } from '@kubernetes/client-node';
import { ControllerRuntimeModule, KUBE_CLIENT, type Client } from '@capi/controller-runtime';
import { startEnvtest, type Envtest } from '@capi/envtest';
import {
  createExtensionServer,
  EXTENSION_REGISTRY,
  EXTENSION_REGISTRY_READY_CHECK,
  type ExtensionConfig,
  ExtensionConfigController,
  ExtensionConfigModule,
  type ExtensionRegistry,
  type ExtensionServer,
  generateServerTls,
  type TlsMaterial,
  type WarmUpPolicy,
  WarmUpTimeoutError,
} from '@capi/runtime-client';
import { type NamedReadinessCheck } from '../../src/module/extension-config.module';

const API = 'runtime.cluster.x-k8s.io/v1beta2';

async function eventually<T>(
  cond: () => Promise<T | undefined | false> | T | undefined | false,
  what: string,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await cond();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('ExtensionConfig registry warm-up (envtest)', () => {
  let env: Envtest;
  let client: Client;
  let bootstrap: TestingModule;
  let tls: TlsMaterial;
  const apps: TestingModule[] = [];
  const servers: ExtensionServer[] = [];
  const kubeconfig = () => {
    const kc = new KubeConfig();
    kc.loadFromString(env.kubeconfig);
    return kc;
  };

  /** A port nothing listens on (yet): start a server there, note the port, close it. */
  async function freePort(): Promise<number> {
    const probe = await createExtensionServer({ tls, handlers: [] });
    await probe.close();
    return Number(new URL(probe.url).port);
  }

  const extensionConfig = (name: string, port: number): ExtensionConfig => ({
    apiVersion: API,
    kind: 'ExtensionConfig',
    metadata: { name },
    spec: { clientConfig: { url: `https://127.0.0.1:${port}`, caBundle: Buffer.from(tls.cert).toString('base64') } },
  });

  async function startManager(warmUp: WarmUpPolicy): Promise<TestingModule> {
    const app = await Test.createTestingModule({
      imports: [
        ControllerRuntimeModule.forRoot({ kubeconfig }),
        ExtensionConfigModule.forRoot({ reconciler: { notReadyRequeueMs: 100 }, warmUp }),
      ],
    }).compile();
    apps.push(app);
    await app.init();
    return app;
  }

  beforeAll(async () => {
    env = await startEnvtest();
    tls = await generateServerTls();
    bootstrap = await Test.createTestingModule({
      imports: [ControllerRuntimeModule.forRoot({ kubeconfig, autoStart: false })],
    }).compile();
    client = bootstrap.get<Client>(KUBE_CLIENT);
  }, 60_000);

  afterEach(async () => {
    for (const app of apps.splice(0)) await app.close();
    for (const s of servers.splice(0)) await s.close();
    for (const ec of (await client.list<ExtensionConfig>(API, 'ExtensionConfig')).items) {
      await client.delete({ apiVersion: API, kind: 'ExtensionConfig', name: ec.metadata.name! });
    }
  });

  afterAll(async () => {
    await bootstrap?.close();
    await env?.stop();
  });

  it('stays not ready while an updater is unreachable at start, and includes it once it answers', async () => {
    const port = await freePort();
    await client.create(extensionConfig('late-updater', port));
    const app = await startManager({ retryIntervalMs: 50, timeoutMs: 60_000 });
    const registry = app.get<ExtensionRegistry>(EXTENSION_REGISTRY);
    const check = app.get<NamedReadinessCheck>(EXTENSION_REGISTRY_READY_CHECK);

    // A failed attempt writes Discovered=False; the registry must not be declared ready without the updater.
    await eventually(async () => {
      const ec = await client.get<ExtensionConfig>({ apiVersion: API, kind: 'ExtensionConfig', name: 'late-updater' });
      return ec.status?.conditions?.some((c) => c.type === 'Discovered' && c.status === 'False');
    }, 'late-updater Discovered=False');
    expect(registry.isReady()).toBe(false);
    expect(check.check()).toBe('ExtensionConfig registry is not warmed up yet');

    servers.push(
      await createExtensionServer({
        tls,
        port,
        handlers: [{ hook: 'UpdateMachine', name: 'update-machine', handle: () => ({}) }],
      }),
    );
    await eventually(() => registry.isReady(), 'registry ready');
    expect(registry.list().map((r) => r.name)).toEqual(['update-machine.late-updater']);
    expect(check.check()).toBe(true);
    expect(await app.get(ExtensionConfigController).warmUpDone).toMatchObject({ ok: true, extensionErrors: [] });
  });

  it('gives up after the timeout, reports the ExtensionConfigs it could not discover and stays not ready', async () => {
    await client.create(extensionConfig('never-up', await freePort()));
    await client.create(extensionConfig('also-down', await freePort()));
    const app = await startManager({ retryIntervalMs: 50, timeoutMs: 1_000 });
    const failures: Error[] = [];
    app.get(ExtensionConfigController).onWarmUpFailure((e) => failures.push(e));

    const failure = await eventually(() => failures[0], 'warm-up failure reported');
    expect(failure).toBeInstanceOf(WarmUpTimeoutError);
    expect((failure as WarmUpTimeoutError).extensionConfigs).toEqual(['also-down', 'never-up']);
    expect(failure.message).toMatch(
      /^ExtensionConfig registry warm-up timed out after 1000ms: discovery failed for 2 ExtensionConfig\(s\) \(also-down, never-up\)/,
    );
    expect(app.get<ExtensionRegistry>(EXTENSION_REGISTRY).isReady()).toBe(false);
    expect(app.get<NamedReadinessCheck>(EXTENSION_REGISTRY_READY_CHECK).check()).toBe(failure.message);
    // A listener added after the failure hears about it too.
    const late: Error[] = [];
    app.get(ExtensionConfigController).onWarmUpFailure((e) => late.push(e));
    expect(late).toEqual([failure]);
  });

  it('allowPartial (off by default) declares the registry ready without the unreachable one', async () => {
    const up = await createExtensionServer({
      tls,
      handlers: [{ hook: 'UpdateMachine', name: 'update-machine', handle: () => ({}) }],
    });
    servers.push(up);
    await client.create(extensionConfig('up', Number(new URL(up.url).port)));
    await client.create(extensionConfig('down', await freePort()));
    const app = await startManager({ retryIntervalMs: 50, timeoutMs: 500, allowPartial: true });
    const registry = app.get<ExtensionRegistry>(EXTENSION_REGISTRY);
    await eventually(() => registry.isReady(), 'registry ready (partial)');
    expect(registry.list().map((r) => r.name)).toEqual(['update-machine.up']);
  });
});
