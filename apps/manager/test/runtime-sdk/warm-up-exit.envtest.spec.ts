// The manager exits (non-zero, one log line naming the ExtensionConfigs) when the registry warm-up gives up, as upstream;
// the embedded default keeps its API server up instead and says how to fix the ExtensionConfig.
import 'reflect-metadata';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '@capi/controller-runtime';
import { startEnvtest, type Envtest } from '@capi/envtest';
import {
  createExtensionServer,
  ExtensionConfigController,
  ExtensionConfigModule,
  generateServerTls,
} from '@capi/runtime-client';
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

  let dir: string;

  beforeAll(async () => {
    env = await startEnvtest();
    const kc = new KubeConfig();
    kc.loadFromString(env.kubeconfig);
    client = new KubeClient(kc);
    dir = mkdtempSync(join(tmpdir(), 'warm-up-'));
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
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await env?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Starts the manager's extensionconfig controller (short warm-up budget) on `argv`; its log lines and exit requests. */
  async function startManager(argv: string[], started: { kubeconfigPath?: string } = {}) {
    const lines: Record<string, unknown>[] = [];
    const logger = JsonLogger.create({ destination: { write: (l: string) => void lines.push(JSON.parse(l)) } });
    const requests: Array<{ code: number; reason: string }> = [];
    const exit: ManagerExit = { request: (code, reason) => void requests.push({ code, reason }) };
    const embedded: EmbeddedEnvironment = {
      start: async () => ({ kubeconfig: env.kubeconfig, ...started }),
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
      config('--controllers=extensionconfig', '--feature-gates=RuntimeSDK=true,InPlaceUpdates=false', ...argv),
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
    const warmUpLines = () => lines.filter((l) => String(l.msg).startsWith('ExtensionConfig registry warm-up failed'));
    const deadline = Date.now() + 30_000;
    while (warmUpLines().length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    return { requests, warmUpLines, app };
  }

  it('an external API server: requests exit code 1 and logs one error line naming the ExtensionConfigs it could not discover', async () => {
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, env.kubeconfig);
    const { requests, warmUpLines } = await startManager([`--kubeconfig=${kubeconfig}`, '--namespace=default']);
    expect(requests).toEqual([
      {
        code: 1,
        reason:
          'ExtensionConfig registry warm-up failed: could not discover ExtensionConfig(s) unreachable-updater; exiting',
      },
    ]);
    expect(warmUpLines()).toEqual([
      expect.objectContaining({
        level: 'error',
        logger: 'manager',
        extensionConfigs: ['unreachable-updater'],
        error: expect.stringContaining('timed out after 600ms'),
      }),
    ]);
  });

  it('the embedded API server: keeps running (it would die with the process) and says how to fix or delete it', async () => {
    const { requests, warmUpLines, app } = await startManager([], { kubeconfigPath: '/data/kubeconfig' });
    expect(warmUpLines()).toEqual([
      expect.objectContaining({
        level: 'error',
        extensionConfigs: ['unreachable-updater'],
        msg:
          'ExtensionConfig registry warm-up failed: could not discover ExtensionConfig(s) unreachable-updater; the ' +
          'embedded API server keeps running, the warm-up is retried and hooks fail until then: fix their spec.clientConfig ' +
          '(kubectl --kubeconfig /data/kubeconfig edit extensionconfig/unreachable-updater) or delete them ' +
          '(kubectl --kubeconfig /data/kubeconfig delete extensionconfig/unreachable-updater)',
      }),
    ]);
    // Past the warm-up budget, still no exit, and the registry not ready.
    await new Promise((r) => setTimeout(r, 1000));
    expect(requests).toEqual([]);
    const controller = app.get(ExtensionConfigController);
    expect(controller.readiness()).not.toBe(true);
    // Fixed (here: deleted) as the line says, the retried warm-up succeeds: hooks work again without a restart.
    await client.delete({
      apiVersion: 'runtime.cluster.x-k8s.io/v1beta2',
      kind: 'ExtensionConfig',
      name: 'unreachable-updater',
    });
    const deadline = Date.now() + 20_000;
    while (controller.readiness() !== true && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(controller.readiness()).toBe(true);
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
