// The records a real reconcile writes through the manager's logger: the Machine controller of the embedded default
// (its API server over HTTP) reconciles a Machine whose Cluster does not exist, which fails and is retried with
// backoff. Every line must be one JSON record with controller-runtime's reconcile fields at the top level
// (pkg/internal/controller/controller.go reconcileHandler, pkg/builder/controller.go LogConstructor), the failure
// "Reconciler error" with the error under `error`; the quick retries fold into a summary without losing a count.
import 'reflect-metadata';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Registry } from 'prom-client';
import { CLUSTER_API_VERSION, INFRASTRUCTURE_GROUP } from '@capi/api';
import { KUBE_CLIENT, METRICS_REGISTRY, type Client } from '@capi/controller-runtime';
import { eventually } from '@capi/envtest';
import { buildManagerModule, JsonLogger, loadManagerConfig, LOGGER } from '@capi/manager';

jest.setTimeout(60_000);

const lines: string[] = [];
let app: INestApplicationContext | undefined;
let client: Client;
let registry: Registry;

beforeAll(async () => {
  const loaded = loadManagerConfig([
    '--data-dir=',
    '--metrics-bind-address=0',
    '--health-probe-bind-address=0',
    '--controllers=machine,extensionconfig',
  ]);
  if (loaded.help) throw new Error('help');
  const logger = JsonLogger.create({ destination: { write: (l: string) => void lines.push(l) } });
  app = await NestFactory.createApplicationContext(
    buildManagerModule(loaded.config, { providers: [{ provide: LOGGER, useValue: logger }] }),
    { logger: false },
  );
  app.useLogger(logger); // as main does: Nest's Logger (the controllers' sink) writes through it
  await app.init();
  client = app.get<Client>(KUBE_CLIENT);
  registry = app.get<Registry>(METRICS_REGISTRY);
});
afterAll(async () => {
  await app?.close();
});

const machineErrors = async (): Promise<number> => {
  const metric = await registry.getSingleMetric('controller_runtime_reconcile_errors_total')!.get();
  return metric.values.find((v) => v.labels.controller === 'machine')?.value ?? 0;
};

it('a failing Machine reconcile writes one JSON record per line with the reconcile fields at the top level', async () => {
  await client.create({
    apiVersion: CLUSTER_API_VERSION,
    kind: 'Machine',
    metadata: { name: 'm1', namespace: 'default' },
    spec: {
      clusterName: 'missing',
      bootstrap: { dataSecretName: 'm1-bootstrap' },
      infrastructureRef: { apiGroup: INFRASTRUCTURE_GROUP, kind: 'InMemoryMachine', name: 'm1' },
    },
  });
  await eventually(async () => (await machineErrors()) >= 4, {
    message: 'the Machine reconcile failed a few times',
    timeoutMs: 30_000,
  });
  await app!.close();
  app = undefined;
  // Let the window of a folded burst end, so its summary is written.
  await new Promise((r) => setTimeout(r, 1100));

  const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>); // throws on a line that is not JSON
  const failures = records.filter((r) => r.msg === 'Reconciler error');
  expect(failures[0]).toEqual({
    level: 'error',
    time: expect.any(String),
    logger: 'Controller(machine)',
    controller: 'machine',
    controllerGroup: 'cluster.x-k8s.io',
    controllerKind: 'Machine',
    Machine: { name: 'm1', namespace: 'default' },
    namespace: 'default',
    name: 'm1',
    reconcileID: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
    err: 'Cluster default/missing not found',
    msg: 'Reconciler error',
  });
  // Quick retries (5 ms, 10 ms, ...) fold into summaries (the last folded record, with `repeated`: how many it stands
  // for); printed records and folded ones count every failure.
  expect(failures.some((r) => typeof r.repeated === 'number')).toBe(true);
  const counted = failures.reduce((n, r) => n + ((r.repeated as number | undefined) ?? 1), 0);
  expect(counted).toBe(await machineErrors());
  expect(new Set(failures.map((r) => r.reconcileID)).size).toBe(failures.length);
});
