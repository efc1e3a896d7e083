// Integration harness: envtest + MachineSet/MachineDeployment controllers + the Machine controller (@capi/machine)
// + the reference updater's hook logic (@capi/inplace-updater) behind a real HTTPS extension server.
// Infra is a tiny test provider (TestMachine/TestMachineTemplate CRDs and a provisioner that marks TestMachines
// provisioned and creates their Node in envtest, which doubles as the workload cluster).
import { Inject, Module, type INestApplicationContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { KubeConfig } from '@kubernetes/client-node';
import {
  BOOTSTRAP_API_VERSION,
  BOOTSTRAP_GROUP,
  CLUSTER_API_VERSION,
  MACHINE_FINALIZER,
  type Machine,
  type MachineDeployment,
} from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import {
  CACHED_CLIENT,
  ControllerRuntimeModule,
  CountingClientMetrics,
  FeatureGates,
  FeatureGatesModule,
  KUBE_CLIENT,
  KubeClient,
  MANAGER,
  ReconcilerFor,
  type Client,
  type Manager,
  type Request,
} from '@capi/controller-runtime';
import { startEnvtest, testInfraCrd, type Envtest } from '@capi/envtest';
import { InPlaceUpdaterHandlers, HANDLER_NAMES } from '@capi/inplace-updater';
import { MachineControllerModule } from '@capi/machine';
import { createTestRuntimeClient } from '@capi/runtime-client/testing';
import { createExtensionServer, discoverExtension, type ExtensionServer } from '@capi/runtime-client';
import { SsaModule } from '@capi/ssa';
import { MachineSetModule } from '@capi/machineset';
import { BufferedLogger } from './buffered-logger';
import type { ClientFaults } from './client-faults';
import { TEST_RATE_LIMITING } from '@capi/controller-runtime/testing';
import { managerSecretCacheOptions } from '@capi/certs';

export const INFRA_GROUP = 'infrastructure.cluster.x-k8s.io';
export const INFRA_API_VERSION = `${INFRA_GROUP}/v1beta2`;
/** CanUpdateMachineSet answers Failure for MachineSets in this namespace. */
export const FAILING_EXTENSION_NAMESPACE = 'broken-extension';

const NODE_CONDITIONS = [
  { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'ok' },
  ...['MemoryPressure', 'DiskPressure', 'PIDPressure'].map((type) => ({ type, status: 'False', reason: 'Ok' })),
];

/** Marks TestMachines provisioned (providerID + status) and creates a Ready Node for each in the envtest server. */
@ReconcilerFor({ name: 'test-infra-provisioner', for: { apiVersion: INFRA_API_VERSION, kind: 'TestMachine' } })
class TestInfraProvisioner {
  constructor(@Inject(KUBE_CLIENT) private readonly client: Client) {}

  async reconcile(req: Request): Promise<void> {
    const ref = { apiVersion: INFRA_API_VERSION, kind: 'TestMachine', namespace: req.namespace, name: req.name };
    const tm = await this.client.tryGet<KubeObject>(ref);
    if (!tm || tm.metadata.deletionTimestamp) return;
    if ((tm.status as { initialization?: { provisioned?: boolean } } | undefined)?.initialization?.provisioned) return;
    const providerID = `test://${req.namespace}/${req.name}`;
    const nodeName = `${req.namespace}-${req.name}`;
    if (!(await this.client.tryGet({ apiVersion: 'v1', kind: 'Node', name: nodeName }))) {
      const node = await this.client.create<KubeObject>({
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: nodeName },
        spec: { providerID },
      });
      await this.client.updateStatus({ ...node, status: { conditions: NODE_CONDITIONS } });
    }
    const withId = await this.client.patch<KubeObject>(ref, 'merge', { spec: { providerID } });
    await this.client.updateStatus({ ...withId, status: { initialization: { provisioned: true } } });
  }
}

/** The bootstrap provider's part for KubeadmConfigs (opt-in): data Secret name and dataSecretCreated in status. */
@ReconcilerFor({
  name: 'test-bootstrap-provisioner',
  for: { apiVersion: BOOTSTRAP_API_VERSION, kind: 'KubeadmConfig' },
})
class TestBootstrapProvisioner {
  constructor(@Inject(KUBE_CLIENT) private readonly client: Client) {}

  async reconcile(req: Request): Promise<void> {
    const ref = { apiVersion: BOOTSTRAP_API_VERSION, kind: 'KubeadmConfig', namespace: req.namespace, name: req.name };
    const config = await this.client.tryGet<KubeObject>(ref);
    if (!config || config.metadata.deletionTimestamp) return;
    const status = (config.status ?? {}) as { initialization?: { dataSecretCreated?: boolean } };
    if (status.initialization?.dataSecretCreated) return;
    await this.client.updateStatus({
      ...config,
      status: { ...status, dataSecretName: `${req.name}-data`, initialization: { dataSecretCreated: true } },
    });
  }
}

/**
 * Without the Machine controller, its last step of a Machine's deletion: the MachineSet creates Machines with the
 * Machine finalizer (as upstream), which only the Machine controller removes. Other finalizers stay.
 */
@ReconcilerFor({ name: 'test-machine-finalizer-remover', for: { apiVersion: CLUSTER_API_VERSION, kind: 'Machine' } })
class TestMachineFinalizerRemover {
  constructor(@Inject(KUBE_CLIENT) private readonly client: Client) {}

  async reconcile(req: Request): Promise<void> {
    const ref = { apiVersion: CLUSTER_API_VERSION, kind: 'Machine', namespace: req.namespace, name: req.name };
    const m = await this.client.tryGet<Machine>(ref);
    const finalizers = m?.metadata.finalizers ?? [];
    if (!m?.metadata.deletionTimestamp || !finalizers.includes(MACHINE_FINALIZER)) return;
    await this.client.patch(ref, 'merge', {
      metadata: {
        finalizers: finalizers.filter((f) => f !== MACHINE_FINALIZER),
        resourceVersion: m.metadata.resourceVersion,
      },
    });
  }
}

@Module({ providers: [TestInfraProvisioner] })
class TestInfraModule {}

@Module({ providers: [TestMachineFinalizerRemover] })
class TestMachineFinalizerModule {}

@Module({ providers: [TestBootstrapProvisioner] })
class TestBootstrapModule {}

export interface Harness {
  env: Envtest;
  client: KubeClient;
  app: INestApplicationContext;
  manager: Manager;
  counts: CountingClientMetrics;
  /** CanUpdateMachineSet / UpdateMachine requests the extension received. */
  hookCalls: { CanUpdateMachineSet: number; UpdateMachine: number; noopUpdateMachine: number };
  /** CanUpdateMachineSet requests per namespace of the MachineSets. */
  canUpdateCallsIn(namespace: string): number;
  /** Registers one more updater (ExtensionConfig `name`) served by `handlers`, as discovery would; closed with close(). */
  addExtension(name: string, handlers: Parameters<typeof createExtensionServer>[0]['handlers']): Promise<void>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  inPlaceUpdates: boolean;
  /** Run the Machine controller and the test infra provisioner (default true). */
  machineLifecycle?: boolean;
  /** How long the reference updater takes per Machine (default 0: done on the first call after the start). */
  updateDurationSeconds?: number;
  /**
   * Also register a second updater, ExtensionConfig `zz-noop`, called after `in-place`: its CanUpdateMachineSet
   * answers Success without patches (it contributes nothing) and its UpdateMachine calls are counted.
   */
  noopUpdater?: boolean;
  /** Write failures injected into the controllers' cached client (their writes go through it). */
  faults?: ClientFaults;
  /** Also run a test bootstrap provider marking KubeadmConfigs' data Secret created (default false). */
  bootstrapProvisioner?: boolean;
  /** MachineSetControllersOptions.inPlaceOnlyRecheckMs (default: the controller's). */
  inPlaceOnlyRecheckMs?: number;
}

export async function startHarness(opts: HarnessOptions): Promise<Harness> {
  const lifecycle = opts.machineLifecycle !== false;
  const env = await startEnvtest({ crds: [testInfraCrd('TestMachine'), testInfraCrd('TestMachineTemplate')] });
  const kc = new KubeConfig();
  kc.loadFromString(env.kubeconfig);
  const client = new KubeClient(kc);
  const counts = new CountingClientMetrics();

  // The reference updater's hook logic, fast by default: an update completes on the first call after it started.
  const updater = new InPlaceUpdaterHandlers({
    updateDurationSeconds: opts.updateDurationSeconds ?? 0,
    updateJitterSeconds: 0,
    retryAfterSeconds: 1,
  });
  const hookCalls = { CanUpdateMachineSet: 0, UpdateMachine: 0, noopUpdateMachine: 0 };
  const canUpdateByNamespace = new Map<string, number>();
  const server: ExtensionServer = await createExtensionServer({
    tls: 'generate',
    handlers: [
      {
        hook: 'CanUpdateMachine',
        name: HANDLER_NAMES.CanUpdateMachine,
        handle: (req) => updater.canUpdateMachine(req),
      },
      {
        hook: 'CanUpdateMachineSet',
        name: HANDLER_NAMES.CanUpdateMachineSet,
        handle: (req) => {
          hookCalls.CanUpdateMachineSet++;
          const ns = req.current.machineSet.metadata.namespace ?? '';
          canUpdateByNamespace.set(ns, (canUpdateByNamespace.get(ns) ?? 0) + 1);
          // A misbehaving extension for one namespace, to check errors surface instead of crashing or rolling out.
          if (req.current.machineSet.metadata.namespace === FAILING_EXTENSION_NAMESPACE)
            return { status: 'Failure', message: 'extension is broken' };
          return updater.canUpdateMachineSet(req);
        },
      },
      {
        hook: 'UpdateMachine',
        name: HANDLER_NAMES.UpdateMachine,
        handle: (req) => (hookCalls.UpdateMachine++, updater.updateMachine(req)),
      },
    ],
  });
  const noopServer = opts.noopUpdater
    ? await createExtensionServer({
        tls: 'generate',
        handlers: [
          { hook: 'CanUpdateMachineSet', name: 'can-update-machineset', handle: () => ({ status: 'Success' }) },
          {
            hook: 'UpdateMachine',
            name: 'update-machine',
            handle: () => (hookCalls.noopUpdateMachine++, { status: 'Success', retryAfterSeconds: 0 }),
          },
        ],
      })
    : undefined;
  const { registry, transport, module: runtimeClientModule } = createTestRuntimeClient(client);
  const extraServers: ExtensionServer[] = [];
  const extensionConfig = (name: string, s: ExtensionServer) => ({
    apiVersion: 'runtime.cluster.x-k8s.io/v1beta2',
    kind: 'ExtensionConfig',
    metadata: { name, resourceVersion: '1' },
    spec: { clientConfig: { url: s.url, caBundle: s.caBundle } },
  });
  registry.add(await discoverExtension(extensionConfig('in-place', server), transport));
  if (noopServer) registry.add(await discoverExtension(extensionConfig('zz-noop', noopServer), transport));

  const builder = Test.createTestingModule({
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
      MachineSetModule.forRoot({ imports: [runtimeClientModule], inPlaceOnlyRecheckMs: opts.inPlaceOnlyRecheckMs }),
      ...(lifecycle
        ? [
            MachineControllerModule.forRoot({
              imports: [runtimeClientModule],
              workloadClusterClientProvider: async () => client,
              nodePollIntervalMs: 500,
            }),
            TestInfraModule,
          ]
        : [TestMachineFinalizerModule]),
      ...(lifecycle && opts.bootstrapProvisioner ? [TestBootstrapModule] : []),
    ],
  });
  const faults = opts.faults;
  if (faults)
    builder
      .overrideProvider(CACHED_CLIENT)
      .useFactory({ inject: [MANAGER], factory: (m: Manager) => faults.wrap(m.cachedClient) });
  const app = await builder.compile();
  const logFile = process.env.HARNESS_LOG_FILE ? new BufferedLogger(process.env.HARNESS_LOG_FILE) : undefined;
  app.useLogger(logFile ?? (process.env.HARNESS_LOG ? ['log', 'warn', 'error'] : false));
  await app.init();
  return {
    env,
    client,
    app,
    counts,
    hookCalls,
    canUpdateCallsIn: (ns) => canUpdateByNamespace.get(ns) ?? 0,
    addExtension: async (name, handlers) => {
      const added = await createExtensionServer({ tls: 'generate', handlers });
      extraServers.push(added);
      registry.add(await discoverExtension(extensionConfig(name, added), transport));
    },
    manager: app.get<Manager>(MANAGER),
    close: async () => {
      await app.close();
      logFile?.flush();
      await server.close();
      await noopServer?.close();
      for (const s of extraServers) await s.close();
      transport.close();
      client.close();
      await env.stop();
    },
  };
}

/** Polls until check returns truthy (real time, bounded); the last error is part of the timeout message. */
export async function eventually<T>(
  check: () => T | Promise<T | undefined | false>,
  label: string,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v) return v as T;
      last = undefined;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${label}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The MachineDeployment createDeployment creates in `ns`. */
export const MD_REF = (ns: string) => ({
  apiVersion: CLUSTER_API_VERSION,
  kind: 'MachineDeployment',
  namespace: ns,
  name: 'md',
});

/** Namespace, ready Cluster, TestMachineTemplate(s) and a MachineDeployment with bootstrap.dataSecretName. */
export async function createDeployment(
  c: KubeClient,
  ns: string,
  o: {
    replicas: number;
    version: string;
    maxSurge: number;
    maxUnavailable: number;
    templates?: Record<string, Record<string, unknown>>;
    onDelete?: boolean;
    /** A KubeadmConfigTemplate of this name (created here) instead of bootstrap.dataSecretName. */
    bootstrapTemplate?: string;
  },
): Promise<MachineDeployment> {
  await c.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  const cluster = await c.create<KubeObject>({
    apiVersion: CLUSTER_API_VERSION,
    kind: 'Cluster',
    metadata: { name: 'c1', namespace: ns },
    spec: {},
  });
  await c.updateStatus({
    ...cluster,
    status: { initialization: { infrastructureProvisioned: true, controlPlaneInitialized: true } },
  });
  for (const [name, spec] of Object.entries(o.templates ?? { tmpl: { image: 'v1' } })) {
    await c.create({
      apiVersion: INFRA_API_VERSION,
      kind: 'TestMachineTemplate',
      metadata: { name, namespace: ns },
      spec: { template: { spec } },
    });
  }
  if (o.bootstrapTemplate)
    await c.create({
      apiVersion: BOOTSTRAP_API_VERSION,
      kind: 'KubeadmConfigTemplate',
      metadata: { name: o.bootstrapTemplate, namespace: ns },
      spec: { template: { spec: {} } },
    });
  return c.create<MachineDeployment>({
    apiVersion: CLUSTER_API_VERSION,
    kind: 'MachineDeployment',
    metadata: { name: 'md', namespace: ns },
    spec: {
      clusterName: 'c1',
      replicas: o.replicas,
      selector: { matchLabels: { 'cluster.x-k8s.io/deployment-name': 'md' } },
      rollout: {
        strategy: o.onDelete
          ? { type: 'OnDelete' }
          : { type: 'RollingUpdate', rollingUpdate: { maxSurge: o.maxSurge, maxUnavailable: o.maxUnavailable } },
      },
      template: {
        metadata: { labels: { 'cluster.x-k8s.io/deployment-name': 'md' } },
        spec: {
          clusterName: 'c1',
          version: o.version,
          bootstrap: o.bootstrapTemplate
            ? {
                configRef: {
                  apiGroup: BOOTSTRAP_GROUP,
                  kind: 'KubeadmConfigTemplate',
                  name: o.bootstrapTemplate,
                },
              }
            : { dataSecretName: 'bootstrap-data' },
          infrastructureRef: {
            apiGroup: INFRA_GROUP,
            kind: 'TestMachineTemplate',
            name: Object.keys(o.templates ?? { tmpl: 0 })[0],
          },
        },
      },
    },
  });
}

export async function machinesOf(c: KubeClient, ns: string): Promise<Machine[]> {
  return (await c.list<Machine>(CLUSTER_API_VERSION, 'Machine', { namespace: ns })).items;
}

/** Compact state of a namespace for failure messages. */
export async function describeNamespace(c: KubeClient, ns: string): Promise<string> {
  const pick = (o: KubeObject) => ({
    name: o.metadata.name,
    annotations: o.metadata.annotations,
    owners: o.metadata.ownerReferences?.map((r) => r.name),
    spec: o.spec,
    status: o.status,
  });
  const lists = await Promise.all(
    [
      [CLUSTER_API_VERSION, 'MachineDeployment'],
      [CLUSTER_API_VERSION, 'MachineSet'],
      [CLUSTER_API_VERSION, 'Machine'],
      [INFRA_API_VERSION, 'TestMachine'],
    ].map(
      async ([v, k]) => `${k}: ${JSON.stringify((await c.list(v, k, { namespace: ns })).items.map(pick), null, 1)}`,
    ),
  );
  return lists.join('\n');
}

export const conditionStatus = (m: Machine, type: string) => m.status?.conditions?.find((x) => x.type === type)?.status;
