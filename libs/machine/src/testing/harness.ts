// Test harness: envtest (embedded API server) + the Machine controller in a Nest app + real HTTPS extension servers.
// The workload cluster is the envtest server itself (Nodes are created there); TestMachine is a tiny infra CRD.
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { Module, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { HOOKS_API_VERSION } from '@capi/api';
import {
  ControllerRuntimeModule,
  CountingClientMetrics,
  FeatureGates,
  FeatureGatesModule,
  KubeClient,
  MANAGER,
  type Manager,
} from '@capi/controller-runtime';
import { extensionConfigFor, kubeConfigFor, ManualClock, startEnvtest, testMachineCrd, type Envtest } from '@capi/envtest';
import {
  createExtensionServer,
  discoverExtension,
  ExtensionRegistry,
  generateServerTls,
  HttpsExtensionTransport,
  RUNTIME_CLIENT,
  RuntimeClient,
  type AnyExtensionHandler,
  type ExtensionServer,
} from '@capi/runtime-client';
import { SsaModule } from '@capi/ssa';
import { MachineControllerModule } from '../machine-controller.module';
import { MachineReconciler } from '../machine.reconciler';

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
  const env = await startEnvtest({ crds: [testMachineCrd()] });
  const kc = kubeConfigFor(env);
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
  h.registry.add(await discoverExtension(extensionConfigFor(name, server, { resourceVersion: '1' }), h.transport));
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
    ...extensionConfigFor(name, { url: `https://127.0.0.1:${port}`, caBundle: Buffer.from(tls.cert).toString('base64') }, { resourceVersion: '1' }),
    status: { handlers: [{ name: `update-machine.${name}`, requestHook: { apiVersion: HOOKS_API_VERSION, hook: 'UpdateMachine' }, timeoutSeconds: 1, failurePolicy: 'Fail' }] },
  });
  return {
    calls: () => calls,
    close: () => new Promise<void>((r) => { h.registry.remove(name); srv.closeAllConnections(); srv.close(() => r()); }),
  };
}
