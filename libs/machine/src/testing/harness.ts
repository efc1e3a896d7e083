// Test harness: envtest (embedded API server) + the Machine controller in a Nest app + real HTTPS extension servers.
// The workload cluster is the envtest server itself (Nodes are created there); TestMachine is a tiny infra CRD.
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { Module, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { KubeConfig } from '@kubernetes/client-node';
import { CONTRACT_VERSION_LABEL_V1BETA2, HOOKS_API_VERSION } from '@capi/api';
import {
  ControllerRuntimeModule,
  CountingClientMetrics,
  FeatureGates,
  FeatureGatesModule,
  KubeClient,
  MANAGER,
  type KubeObject,
  type Manager,
} from '@capi/controller-runtime';
import { startEnvtest, type Envtest } from '@capi/envtest';
import {
  createExtensionServer,
  discoverExtension,
  ExtensionRegistry,
  generateServerTls,
  HttpsExtensionTransport,
  RUNTIME_CLIENT,
  RuntimeClient,
  type AnyExtensionHandler,
  type ExtensionConfig,
  type ExtensionServer,
} from '@capi/runtime-client';
import { SsaModule } from '@capi/ssa';
import { MachineControllerModule } from '../machine-controller.module';
import { MachineReconciler } from '../machine.reconciler';

export const INFRA_GROUP = 'infrastructure.cluster.x-k8s.io';
export const INFRA_API_VERSION = `${INFRA_GROUP}/v1beta2`;

/** A minimal infrastructure machine CRD following the v1beta2 contract (label + spec.providerID + status.initialization). */
export const testMachineCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `testmachines.${INFRA_GROUP}`, labels: { [CONTRACT_VERSION_LABEL_V1BETA2]: 'v1beta2' } },
  spec: {
    group: INFRA_GROUP,
    scope: 'Namespaced',
    names: { kind: 'TestMachine', plural: 'testmachines', singular: 'testmachine', listKind: 'TestMachineList' },
    versions: [{
      name: 'v1beta2', served: true, storage: true, subresources: { status: {} },
      schema: { openAPIV3Schema: { type: 'object', properties: {
        spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      } } },
    }],
  },
};

/** Manually advanced clock (ms). */
export class ManualClock {
  constructor(public t = Date.parse('2026-01-01T00:00:00Z')) {}
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

export interface Harness {
  env: Envtest;
  client: KubeClient;
  app: INestApplication;
  reconciler: MachineReconciler;
  manager: Manager;
  registry: ExtensionRegistry;
  clock: ManualClock;
  counts: CountingClientMetrics;
  transport: HttpsExtensionTransport;
  close(): Promise<void>;
}

export async function startHarness(opts: { inPlaceUpdates: boolean; nodePollIntervalMs?: number }): Promise<Harness> {
  const env = await startEnvtest({ crds: [testMachineCrd] });
  const kc = new KubeConfig();
  kc.loadFromString(env.kubeconfig);
  const client = new KubeClient(kc);
  const registry = new ExtensionRegistry();
  registry.warmUp([]);
  const transport = new HttpsExtensionTransport();
  const runtimeClient = new RuntimeClient(registry, transport, async (ns) => (await client.get({ apiVersion: 'v1', kind: 'Namespace', name: ns })).metadata.labels ?? {});
  const clock = new ManualClock();
  const counts = new CountingClientMetrics();

  @Module({ providers: [{ provide: RUNTIME_CLIENT, useValue: runtimeClient }], exports: [RUNTIME_CLIENT] })
  class TestRuntimeClientModule {}

  const moduleRef = await Test.createTestingModule({
    imports: [
      ControllerRuntimeModule.forRoot({ kubeconfig: kc, clientMetrics: counts, gracefulShutdownTimeoutMs: 5000 }),
      FeatureGatesModule.forRoot(new FeatureGates({ InPlaceUpdates: opts.inPlaceUpdates, RuntimeSDK: opts.inPlaceUpdates })),
      SsaModule.forRoot(),
      MachineControllerModule.forRoot({
        imports: [TestRuntimeClientModule],
        workloadClusterClientProvider: async () => client,
        clock,
        nodePollIntervalMs: opts.nodePollIntervalMs ?? 60_000,
      }),
    ],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.init();
  return {
    env, client, app, registry, clock, counts, transport,
    reconciler: app.get(MachineReconciler),
    manager: app.get<Manager>(MANAGER),
    close: async () => {
      await app.close();
      transport.close();
      client.close();
      await env.stop();
    },
  };
}

/** Registers an extension server (discovery over HTTPS) under ExtensionConfig `name`. */
export async function registerExtension(h: Harness, name: string, handlers: AnyExtensionHandler[]): Promise<ExtensionServer> {
  const server = await createExtensionServer({ tls: 'generate', handlers });
  const ec: ExtensionConfig = {
    apiVersion: 'runtime.cluster.x-k8s.io/v1beta2',
    kind: 'ExtensionConfig',
    metadata: { name, resourceVersion: '1' },
    spec: { clientConfig: { url: server.url, caBundle: server.caBundle } },
  };
  h.registry.add(await discoverExtension(ec, h.transport));
  return server;
}

/**
 * A misbehaving UpdateMachine extension answering with a raw status/body, or never ('hang'); registered without
 * discovery (handler timeout 1 s). Returns its request count and a closer.
 */
export async function registerRawExtension(h: Harness, name: string, behaviour: { code: number; body: string } | 'hang') {
  const tls = await generateServerTls();
  let calls = 0;
  const srv = https.createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
    req.resume();
    req.on('end', () => {
      calls++;
      if (behaviour === 'hang') return; // the client times out
      res.writeHead(behaviour.code, { 'content-type': 'application/json' });
      res.end(behaviour.body);
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as AddressInfo).port;
  h.registry.add({
    apiVersion: 'runtime.cluster.x-k8s.io/v1beta2',
    kind: 'ExtensionConfig',
    metadata: { name, resourceVersion: '1' },
    spec: { clientConfig: { url: `https://127.0.0.1:${port}`, caBundle: Buffer.from(tls.cert).toString('base64') } },
    status: { handlers: [{ name: `update-machine.${name}`, requestHook: { apiVersion: HOOKS_API_VERSION, hook: 'UpdateMachine' }, timeoutSeconds: 1, failurePolicy: 'Fail' }] },
  } as ExtensionConfig);
  return {
    calls: () => calls,
    close: () => new Promise<void>((r) => { h.registry.remove(name); srv.closeAllConnections(); srv.close(() => r()); }),
  };
}

/** Polls until check returns truthy (real time, bounded). */
export async function eventually<T>(check: () => T | Promise<T | undefined | false> , label: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v) return v as T;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${label}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export type { KubeObject };

/** Waits until the Machine controller's queue is empty and idle for `quietMs` (bounded). */
export async function settle(h: Harness, quietMs = 150, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let quietSince = Date.now();
  for (;;) {
    const c = h.manager.controller('machine');
    const busy = !c || c.queue.len() > 0 || c.queue.processingCount() > 0;
    if (busy) quietSince = Date.now();
    else if (Date.now() - quietSince >= quietMs) return;
    if (Date.now() > deadline) throw new Error('machine controller did not settle');
    await new Promise((r) => setTimeout(r, 10));
  }
}
