// The embedded default's extras through the real manager module (embedded API server, in-memory provider, updater).
import 'reflect-metadata';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  CLUSTER_API_VERSION,
  ExtensionConfigGVK,
  INFRASTRUCTURE_GROUP,
  type Cluster,
  type ExtensionConfig,
} from '@capi/api';
import { KUBE_CLIENT, type Client } from '@capi/controller-runtime';
import { INMEMORY_API_VERSION, INMEMORY_INPLACE_UPDATER } from '@capi/inmemory';
import type { RunningInPlaceUpdater } from '@capi/inplace-updater';
import {
  buildManagerModule,
  JsonLogger,
  loadManagerConfig,
  LOGGER,
  UPDATER_EXTENSION_CONFIG_NAME,
} from '@capi/manager';

jest.setTimeout(60_000);

async function eventually<T>(
  probe: () => Promise<T | undefined | false>,
  what: string,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await probe();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}

let app: INestApplicationContext;
let client: Client;
beforeAll(async () => {
  const loaded = loadManagerConfig([
    '--data-dir=',
    '--metrics-bind-address=0',
    '--health-probe-bind-address=0',
    '--controllers=cluster,extensionconfig',
  ]);
  if (loaded.help) throw new Error('help');
  const quiet = { provide: LOGGER, useValue: JsonLogger.create({ destination: { write: () => undefined } }) };
  app = await NestFactory.createApplicationContext(
    buildManagerModule(loaded.config, { providers: [quiet], embeddedProvider: { provisioningDelayMs: 0 } }),
    { logger: false },
  );
  await app.init();
  client = app.get<Client>(KUBE_CLIENT);
});
afterAll(async () => {
  await app?.close();
});

describe('embedded provider module', () => {
  it('registers the reference updater with an ExtensionConfig that the ExtensionConfig controller discovers', async () => {
    const updater = app.get<RunningInPlaceUpdater>(INMEMORY_INPLACE_UPDATER);
    const ec = await eventually(async () => {
      const e = await client.get<ExtensionConfig>({
        apiVersion: ExtensionConfigGVK.apiVersion,
        kind: 'ExtensionConfig',
        name: UPDATER_EXTENSION_CONFIG_NAME,
      });
      return e.status?.conditions?.some((c) => c.type === 'Discovered' && c.status === 'True') ? e : undefined;
    }, 'ExtensionConfig Discovered');
    expect(ec.spec.clientConfig).toEqual({ url: updater.url, caBundle: updater.caBundle });
    expect((ec.status?.handlers ?? []).map((h) => h.requestHook.hook).sort()).toEqual([
      'CanUpdateMachine',
      'CanUpdateMachineSet',
      'UpdateMachine',
    ]);
  });

  it('the Cluster controller takes the InMemoryCluster provisioning into the Cluster (endpoint, infrastructureProvisioned)', async () => {
    const cluster = await client.create<Cluster>({
      apiVersion: CLUSTER_API_VERSION,
      kind: 'Cluster',
      metadata: { name: 'c1', namespace: 'default' },
      spec: { infrastructureRef: { apiGroup: INFRASTRUCTURE_GROUP, kind: 'InMemoryCluster', name: 'c1' } },
    });
    await client.create({
      apiVersion: INMEMORY_API_VERSION,
      kind: 'InMemoryCluster',
      metadata: {
        name: 'c1',
        namespace: 'default',
        ownerReferences: [{ apiVersion: CLUSTER_API_VERSION, kind: 'Cluster', name: 'c1', uid: cluster.metadata.uid! }],
      },
      spec: {},
    });
    const provisioned = await eventually(async () => {
      const c = await client.get<Cluster>({
        apiVersion: CLUSTER_API_VERSION,
        kind: 'Cluster',
        namespace: 'default',
        name: 'c1',
      });
      return c.status?.initialization?.infrastructureProvisioned && c.spec.controlPlaneEndpoint?.port ? c : undefined;
    }, 'Cluster infrastructureProvisioned');
    expect(provisioned.spec.controlPlaneEndpoint?.host).toBe('127.0.0.1');
    // No control plane object: not initialized.
    expect(provisioned.status?.initialization?.controlPlaneInitialized).toBeUndefined();
  });
});
