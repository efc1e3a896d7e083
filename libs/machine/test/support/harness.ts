// Test harness: envtest (embedded API server) + the Machine controller in a Nest app + real HTTPS extension servers.
// The workload cluster is the envtest server itself (Nodes are created there); TestMachine is a tiny infra CRD.
import type { INestApplicationContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { LabelSelector } from '@capi/api';
import {
  type Client,
  ControllerRuntimeModule,
  CountingClientMetrics,
  FeatureGates,
  FeatureGatesModule,
  KubeClient,
  MANAGER,
  type Manager,
  type Request,
  type Result,
} from '@capi/controller-runtime';
import { FakeClock } from '@capi/apimachinery/testing';
import { reconcileWhenCached, TEST_RATE_LIMITING } from '@capi/controller-runtime/testing';
import { extensionConfigFor, kubeConfigFor, startEnvtest, testMachineCrd, type Envtest } from '@capi/envtest';
import { createTestRuntimeClient } from '@capi/runtime-client/testing';
import {
  createExtensionServer,
  discoverExtension,
  ExtensionRegistry,
  HttpsExtensionTransport,
  type AnyExtensionHandler,
  type ExtensionServer,
} from '@capi/runtime-client';
import { SsaModule } from '@capi/ssa';
import { MachineControllerModule } from '@capi/machine';
import { startFaultyExtension, type ExtensionFault, type FaultyExtension } from './faulty-extension';
import { MachineReconciler } from '../../src/machine.reconciler';
import { managerSecretCacheOptions } from '@capi/certs';

export interface Harness {
  env: Envtest;
  client: KubeClient;
  app: INestApplicationContext;
  reconciler: MachineReconciler;
  /** One reconcile outside the controller's queue, with a fresh test context. */
  reconcile(req: Request): Promise<Result | void>;
  manager: Manager;
  registry: ExtensionRegistry;
  clock: FakeClock;
  counts: CountingClientMetrics;
  transport: HttpsExtensionTransport;
  close(): Promise<void>;
}

export interface HarnessOptions {
  inPlaceUpdates: boolean;
  nodePollIntervalMs?: number;
  /** Wraps the workload cluster client (the envtest server's), e.g. to make calls fail. */
  wrapWorkloadClient?: (client: KubeClient) => Client;
  nodeDeletionRetryTimeoutMs?: number;
}

export async function startHarness(opts: HarnessOptions): Promise<Harness> {
  const env = await startEnvtest({ crds: [testMachineCrd()] });
  const kc = kubeConfigFor(env);
  const client = new KubeClient(kc);
  const { registry, transport, module: runtimeClientModule } = createTestRuntimeClient(client);
  const clock = new FakeClock();
  const counts = new CountingClientMetrics();
  const workloadClient = opts.wrapWorkloadClient?.(client) ?? client;

  const moduleRef = await Test.createTestingModule({
    imports: [
      ControllerRuntimeModule.forRoot({
        ...managerSecretCacheOptions(),
        kubeconfig: kc,
        clientMetrics: counts,
        gracefulShutdownTimeoutMs: 5000,
        ...TEST_RATE_LIMITING,
      }),
      FeatureGatesModule.forRoot(
        new FeatureGates({ InPlaceUpdates: opts.inPlaceUpdates, RuntimeSDK: opts.inPlaceUpdates }),
      ),
      SsaModule.forRoot(),
      MachineControllerModule.forRoot({
        imports: [runtimeClientModule],
        workloadClusterClientProvider: async () => workloadClient,
        clock,
        nodePollIntervalMs: opts.nodePollIntervalMs ?? 60_000,
        nodeDeletionRetryTimeoutMs: opts.nodeDeletionRetryTimeoutMs,
      }),
    ],
  }).compile();
  const app = moduleRef;
  app.useLogger(false);
  await app.init();
  const manager = app.get<Manager>(MANAGER);
  const reconciler = app.get(MachineReconciler);
  return {
    env,
    client,
    app,
    registry,
    clock,
    counts,
    transport,
    reconciler,
    // The reconciler reads from the manager's cache: let it show the test's last write first.
    reconcile: reconcileWhenCached(reconciler, manager.cache, client, {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Machine',
    }),
    manager,
    close: async () => {
      await app.close();
      transport.close();
      client.close();
      await env.stop();
    },
  };
}

/** Registers an extension server (discovery over HTTPS) under ExtensionConfig `name`. */
export async function registerExtension(
  h: Harness,
  name: string,
  handlers: AnyExtensionHandler[],
): Promise<ExtensionServer> {
  const server = await createExtensionServer({ tls: 'generate', handlers });
  h.registry.add(await discoverExtension(extensionConfigFor(name, server, { resourceVersion: '1' }), h.transport));
  return server;
}

/** A faulty UpdateMachine extension (see faulty-extension.ts) registered without discovery; close() also unregisters it. */
export async function registerFaultyExtension(
  h: Harness,
  name: string,
  fault: ExtensionFault | undefined,
  opts: { namespaceSelector?: LabelSelector } = {},
): Promise<FaultyExtension> {
  const ext = await startFaultyExtension(name, { fault, ...opts });
  h.registry.add(ext.extensionConfig);
  return {
    ...ext,
    get fault() {
      return ext.fault;
    },
    close: async () => {
      h.registry.remove(name);
      await ext.close();
    },
  };
}
