// The manager's webhook server wiring through buildManagerModule: the embedded default serves on 127.0.0.1 with a
// certificate it generates into the data dir (a busy default port replaced by a free one), its configurations go to
// the embedded API server when that serves admissionregistration.k8s.io (else a warning says they were not
// registered), --webhook-port=0 or no registration runs no server, and the "webhook" checks follow the server.
import 'reflect-metadata';
import { createServer, type Server } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { KUBE_CLIENT, type Client } from '@capi/controller-runtime';
import { TEST_INFRA_API_VERSION, TEST_MACHINE_KIND } from '@capi/envtest';
import {
  VALIDATING_WEBHOOK_CONFIGURATION,
  WEBHOOK_REGISTRATIONS,
  type WebhookConfiguration,
  type WebhookRegistration,
} from '@capi/webhooks';
import {
  buildManagerModule,
  HEALTH_CHECKS,
  JsonLogger,
  loadManagerConfig,
  LOGGER,
  READINESS_CHECKS,
  WEBHOOK_SERVER,
  type CheckRegistry,
  type RunningWebhookServer,
} from '@capi/manager';
import { deniedMessage, review, testMachineWebhooks } from './support';

jest.setTimeout(60_000);

const apps: INestApplicationContext[] = [];
const dirs: string[] = [];
afterAll(async () => {
  for (const app of apps) await app.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function start(argv: string[], registrations: WebhookRegistration[], logs: string[] = []) {
  const dataDir = mkdtempSync(join(tmpdir(), 'manager-webhooks-'));
  dirs.push(dataDir);
  const loaded = loadManagerConfig([
    '--metrics-bind-address=0',
    '--health-probe-bind-address=0',
    `--data-dir=${dataDir}`,
    '--embedded-provider=false',
    '--controllers=',
    ...argv,
  ]);
  if (loaded.help) throw new Error('help');
  const app = await NestFactory.createApplicationContext(
    buildManagerModule(loaded.config, {
      providers: [
        { provide: LOGGER, useValue: JsonLogger.create({ destination: { write: (l: string) => void logs.push(l) } }) },
        { provide: WEBHOOK_REGISTRATIONS, useValue: registrations },
      ],
    }),
    { logger: false, abortOnError: false },
  );
  apps.push(app);
  await app.init();
  return { app, dataDir };
}

describe('the embedded default webhook server', () => {
  let blocker: Server | undefined;
  afterAll(() => blocker?.close());

  it('serves the registrations on 127.0.0.1 with its generated CA, on a free port when 9443 is busy', async () => {
    // Hold 127.0.0.1:9443: the default port must then be replaced. Another test's manager may hold it for a while
    // (and let it go at any moment), so keep trying to hold it ourselves; only a holder that stays is relied on.
    const hold = () =>
      new Promise<Server | undefined>((resolve) => {
        const s = createServer();
        s.once('error', () => resolve(undefined));
        s.listen(9443, '127.0.0.1', () => resolve(s));
      });
    for (let i = 0; i < 100 && !blocker; i++) {
      blocker = await hold();
      if (!blocker) await new Promise((r) => setTimeout(r, 200));
    }
    const logs: string[] = [];
    const { app, dataDir } = await start([], [testMachineWebhooks], logs);
    const running = app.get<RunningWebhookServer>(WEBHOOK_SERVER);
    expect(running.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(running.url).not.toBe('https://127.0.0.1:9443');
    expect(running.server?.certFile).toBe(join(dataDir, 'webhook-certs', 'tls.crt'));

    const out = await review(
      running.url!,
      running.caBundle!,
      '/validate-infrastructure-cluster-x-k8s-io-v1beta2-testmachine',
      {
        uid: 'u',
        operation: 'CREATE',
        object: {
          apiVersion: TEST_INFRA_API_VERSION,
          kind: TEST_MACHINE_KIND,
          metadata: { name: 'm' },
          spec: { size: 'huge' },
        },
      },
    );
    expect(out.response).toMatchObject({
      uid: 'u',
      allowed: false,
      status: { code: 422, message: deniedMessage('m') },
    });

    for (const token of [READINESS_CHECKS, HEALTH_CHECKS])
      expect(app.get<CheckRegistry>(token).names()).toContain('webhook');
    const ready = await app.get<CheckRegistry>(READINESS_CHECKS).run();
    expect(ready.find((r) => r.name === 'webhook')).toEqual({ name: 'webhook', ok: true });

    // Registered with the embedded API server once it serves the kind; until then a warning says why not.
    const client = app.get<Client>(KUBE_CLIENT);
    const config = await client
      .tryGet({
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        name: VALIDATING_WEBHOOK_CONFIGURATION,
      })
      .catch(() => undefined);
    if (config) {
      expect((config as unknown as WebhookConfiguration).webhooks[0].clientConfig).toEqual({
        url: `${running.url}/validate-infrastructure-cluster-x-k8s-io-v1beta2-testmachine`,
        caBundle: running.caBundle,
      });
    } else {
      expect(logs.join('')).toContain('does not serve admissionregistration.k8s.io/v1: webhooks not registered');
    }
  });

  it('--webhook-port=0 runs no server; so does an empty registration list (nothing registers on it)', async () => {
    for (const [argv, registrations] of [
      [['--webhook-port=0'], [testMachineWebhooks]],
      [[], []],
    ] as const) {
      const { app } = await start([...argv], [...registrations]);
      expect(app.get<RunningWebhookServer>(WEBHOOK_SERVER).server).toBeUndefined();
      expect(app.get<CheckRegistry>(READINESS_CHECKS).names()).not.toContain('webhook');
    }
  });
});
