// The admission path end to end: the manager module serves a webhook pair (support.ts) from its webhook server
// (--webhook-port, a cert dir as cert-manager would mount), the webhook configurations are registered with the API
// server by the embedded default's registration code (url clientConfig and caBundle), and the API server calls them:
// a create is denied with the validator's message, and a created object carries the defaulted field.
// Embedded target: skipped until the embedded API server calls admission webhooks (kube-apiserver does).
import 'reflect-metadata';
import { createServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { KubeObject } from '@capi/apimachinery';
import type { KubeClient } from '@capi/controller-runtime';
import {
  clientFor,
  eventually,
  startEnvtest,
  TEST_INFRA_API_VERSION,
  TEST_MACHINE_KIND,
  testMachineCrd,
  type Envtest,
} from '@capi/envtest';
import { envtestTarget } from '@capi/kube-control-plane';
import { WEBHOOK_REGISTRATIONS } from '@capi/webhooks';
import {
  buildManagerModule,
  ensureEmbeddedWebhookCerts,
  JsonLogger,
  loadManagerConfig,
  LOGGER,
  READINESS_CHECKS,
  registerWebhookConfigurations,
  unregisterWebhookConfigurations,
  WEBHOOK_SERVER,
  type CheckRegistry,
  type RunningWebhookServer,
} from '@capi/manager';
import { deniedMessage, testMachineWebhooks } from './support';

jest.setTimeout(90_000);

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

(envtestTarget() === 'kube' ? describe : describe.skip)('admission webhooks served by the manager', () => {
  let env: Envtest;
  let client: KubeClient;
  let app: INestApplicationContext | undefined;
  let certDir: string;
  const ns = 'webhooks';

  beforeAll(async () => {
    env = await startEnvtest({ crds: [testMachineCrd()] });
    client = clientFor(env);
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    certDir = mkdtempSync(join(tmpdir(), 'webhook-e2e-'));
  });
  afterAll(async () => {
    await app?.close();
    client?.close();
    await env?.stop();
    rmSync(certDir, { recursive: true, force: true });
  });

  it('kube-apiserver denies a create with the validator message and stores the defaulted field', async () => {
    // What cert-manager would mount: a serving certificate for 127.0.0.1 and its CA.
    const certs = await ensureEmbeddedWebhookCerts(certDir);
    const port = await freePort();
    const loaded = loadManagerConfig([
      `--kubeconfig=${env.kubeconfigPath}`,
      '--metrics-bind-address=0',
      '--health-probe-bind-address=0',
      '--controllers=',
      `--webhook-port=${port}`,
      `--webhook-cert-dir=${certs.certDir}`,
    ]);
    if (loaded.help) throw new Error('help');
    app = await NestFactory.createApplicationContext(
      buildManagerModule(loaded.config, {
        providers: [
          { provide: LOGGER, useValue: JsonLogger.create({ destination: { write: () => undefined } }) },
          { provide: WEBHOOK_REGISTRATIONS, useValue: [testMachineWebhooks] },
        ],
      }),
      { logger: false, abortOnError: false },
    );
    await app.init();
    const running = app.get<RunningWebhookServer>(WEBHOOK_SERVER);
    expect(running.server?.port).toBe(port);
    // Serving needs no leadership and is ready once started (core/main.go's "webhook" readyz check).
    const ready = await app.get<CheckRegistry>(READINESS_CHECKS).run();
    expect(ready.find((r) => r.name === 'webhook')).toEqual({ name: 'webhook', ok: true });

    const applied = await registerWebhookConfigurations(
      client,
      [testMachineWebhooks],
      `https://127.0.0.1:${port}`,
      certs.caBundle,
      'webhook-e2e',
    );
    expect(applied.map((c) => [c.kind, c.metadata.name, c.webhooks[0].clientConfig.url])).toEqual([
      [
        'MutatingWebhookConfiguration',
        'capi-mutating-webhook-configuration',
        `https://127.0.0.1:${port}/mutate-infrastructure-cluster-x-k8s-io-v1beta2-testmachine`,
      ],
      [
        'ValidatingWebhookConfiguration',
        'capi-validating-webhook-configuration',
        `https://127.0.0.1:${port}/validate-infrastructure-cluster-x-k8s-io-v1beta2-testmachine`,
      ],
    ]);

    const machine = (name: string, spec: Record<string, unknown>): KubeObject & { spec: { size?: string } } => ({
      apiVersion: TEST_INFRA_API_VERSION,
      kind: TEST_MACHINE_KIND,
      metadata: { name, namespace: ns },
      spec,
    });
    // kube-apiserver picks the configurations up from its informer: retry until the denial shows.
    let denial = '';
    await eventually(async () => {
      try {
        await client.create(machine('huge', { size: 'huge' }));
        await client.delete({
          apiVersion: TEST_INFRA_API_VERSION,
          kind: TEST_MACHINE_KIND,
          name: 'huge',
          namespace: ns,
        });
        return false;
      } catch (e) {
        denial = (e as Error).message;
        return true;
      }
    }, 'the validating webhook denies a huge TestMachine');
    expect(denial).toContain(
      `admission webhook "validation.testmachine.infrastructure.cluster.x-k8s.io" denied the request: ${deniedMessage('huge')}`,
    );

    const created = await client.create<KubeObject & { spec: { size?: string } }>(machine('plain', {}));
    expect(created.spec.size).toBe('small');
    const stored = await client.get<KubeObject & { spec: { size?: string } }>({
      apiVersion: TEST_INFRA_API_VERSION,
      kind: TEST_MACHINE_KIND,
      name: 'plain',
      namespace: ns,
    });
    expect(stored.spec.size).toBe('small');

    // Unregistered (what the embedded default does when it runs no webhook server): the API server stops calling.
    await unregisterWebhookConfigurations(client);
    await unregisterWebhookConfigurations(client); // already gone: fine
    await eventually(async () => {
      try {
        await client.create(machine('huge-unchecked', { size: 'huge' }));
        return true;
      } catch {
        return false;
      }
    }, 'a huge TestMachine is accepted once the configurations are gone');
  });
});
