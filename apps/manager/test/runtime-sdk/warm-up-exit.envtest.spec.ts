// The manager exits (non-zero, one log line naming the ExtensionConfigs) when the registry warm-up gives up, as upstream.
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '@capi/controller-runtime';
import { startEnvtest, type Envtest } from '@capi/envtest';
import { createExtensionServer, ExtensionConfigModule, generateServerTls } from '@capi/runtime-client';
import {
  buildManagerModule,
  type ControllerRegistry,
  DEFAULT_CONTROLLERS,
  DeferredManagerExit,
  EMBEDDED_ENVIRONMENT,
  type EmbeddedEnvironment,
  JsonLogger,
  loadManagerConfig,
  LOGGER,
  MANAGER_EXIT,
  type ManagerConfig,
  type ManagerExit,
} from '@capi/manager';

jest.setTimeout(60_000);

function config(...argv: string[]): ManagerConfig {
  const r = loadManagerConfig([
    '--metrics-bind-address=0',
    '--health-probe-bind-address=0',
    '--data-dir=',
    '--embedded-provider=false',
    ...argv,
  ]);
  if (r.help) throw new Error('help');
  return r.config;
}

describe('manager exit on a failed ExtensionConfig registry warm-up', () => {
  let env: Envtest;
  let client: KubeClient;
  const apps: INestApplicationContext[] = [];

  beforeAll(async () => {
    env = await startEnvtest();
    const kc = new KubeConfig();
    kc.loadFromString(env.kubeconfig);
    client = new KubeClient(kc);
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await env?.stop();
  });

  it('requests exit code 1 and logs one error line naming the ExtensionConfigs it could not discover', async () => {
    // Nothing listens on the port of a closed server.
    const tls = await generateServerTls();
    const gone = await createExtensionServer({ tls, handlers: [] });
    await gone.close();
    await client.create({
      apiVersion: 'runtime.cluster.x-k8s.io/v1beta2',
      kind: 'ExtensionConfig',
      metadata: { name: 'unreachable-updater' },
      spec: { clientConfig: { url: gone.url, caBundle: Buffer.from(tls.cert).toString('base64') } },
    });

    const lines: Record<string, unknown>[] = [];
    const logger = JsonLogger.create({ destination: { write: (l: string) => void lines.push(JSON.parse(l)) } });
    const requests: Array<{ code: number; reason: string }> = [];
    const exit: ManagerExit = { request: (code, reason) => void requests.push({ code, reason }) };
    const embedded: EmbeddedEnvironment = {
      start: async () => ({ kubeconfig: env.kubeconfig }),
      stop: async () => undefined,
    } as EmbeddedEnvironment;
    // The real ExtensionConfigModule with a short warm-up budget (upstream's is 60 s).
    const controllers: ControllerRegistry = {
      ...DEFAULT_CONTROLLERS,
      extensionconfig: {
        module: () => ExtensionConfigModule.forRoot({ warmUp: { retryIntervalMs: 50, timeoutMs: 600 } }),
        gate: 'RuntimeSDK',
      },
    };
    const root = buildManagerModule(
      config('--controllers=extensionconfig', '--feature-gates=RuntimeSDK=true,InPlaceUpdates=false'),
      {
        controllers,
        providers: [
          { provide: LOGGER, useValue: logger },
          { provide: EMBEDDED_ENVIRONMENT, useValue: embedded },
          { provide: MANAGER_EXIT, useValue: exit },
        ],
      },
    );
    const app = await NestFactory.createApplicationContext(root, { logger: false, abortOnError: false });
    apps.push(app);
    await app.init();

    const deadline = Date.now() + 30_000;
    while (requests.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    expect(requests).toEqual([
      {
        code: 1,
        reason:
          'ExtensionConfig registry warm-up failed: could not discover ExtensionConfig(s) unreachable-updater; exiting',
      },
    ]);
    const exitLines = lines.filter((l) => String(l.msg).startsWith('ExtensionConfig registry warm-up failed'));
    expect(exitLines).toEqual([
      expect.objectContaining({
        level: 'error',
        logger: 'manager',
        extensionConfigs: ['unreachable-updater'],
        error: expect.stringContaining('timed out after 600ms'),
      }),
    ]);
  });

  it('DeferredManagerExit keeps the first request for a handler that subscribes later', () => {
    const exit = new DeferredManagerExit();
    exit.request(1, 'first');
    exit.request(3, 'second');
    const seen: number[] = [];
    exit.onRequest((code) => seen.push(code));
    expect(seen).toEqual([1]);
  });
});
