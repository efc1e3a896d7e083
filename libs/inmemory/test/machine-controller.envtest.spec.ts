// End to end with the real Machine controller (@capi/machine): a Machine with a KubeadmConfig and an InMemoryMachine
// goes to Running with a nodeRef to the Node this provider registered in the workload cluster; an in-place update
// marked on it runs through the module's updater and changes the Node; deleting the Machine removes the Node.
import { Module } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import {
  BOOTSTRAP_API_VERSION,
  CLUSTER_API_VERSION,
  INFRASTRUCTURE_GROUP,
  PENDING_HOOKS_ANNOTATION,
  UPDATE_IN_PROGRESS_ANNOTATION,
  type Machine,
} from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import {
  ControllerRuntimeModule,
  FeatureGates,
  FeatureGatesModule,
  KUBE_CLIENT,
  type Client,
} from '@capi/controller-runtime';
import type { RunningInPlaceUpdater } from '@capi/inplace-updater';
import {
  discoverExtension,
  ExtensionRegistry,
  HttpsExtensionTransport,
  RUNTIME_CLIENT,
  RuntimeClient,
} from '@capi/runtime-client';
import { eventually, extensionConfigFor, kubeConfigFor, startEnvtest, type Envtest } from '@capi/envtest';
import { MachineControllerModule } from '@capi/machine';
import { SsaModule } from '@capi/ssa';
import {
  INMEMORY_API_VERSION,
  INMEMORY_INPLACE_UPDATER,
  InMemoryProviderModule,
  registerInMemoryKinds,
} from '@capi/inmemory';
import { WORKLOAD_CLUSTER_CLIENT_PROVIDER, type WorkloadClusterClientProvider } from '@capi/clustercache';
import { NS } from './support/fixtures';
import { kubeletVersionOf } from '../src/host/node';
import { TEST_RATE_LIMITING } from '@capi/controller-runtime/testing';
import { managerSecretCacheOptions } from '@capi/certs';

jest.setTimeout(60_000);

let env: Envtest;
let app: TestingModule;
let client: Client;
const registry = new ExtensionRegistry();
const transport = new HttpsExtensionTransport();

beforeAll(async () => {
  registerInMemoryKinds();
  env = await startEnvtest();
  const kc = kubeConfigFor(env);
  const runtime = new RuntimeClient(registry, transport, async () => ({}));
  @Module({ providers: [{ provide: RUNTIME_CLIENT, useValue: runtime }], exports: [RUNTIME_CLIENT] })
  class TestRuntimeClientModule {}
  app = await Test.createTestingModule({
    imports: [
      ControllerRuntimeModule.forRoot({
        ...managerSecretCacheOptions(),
        kubeconfig: kc,
        fieldManager: 'test',
        ...TEST_RATE_LIMITING,
      }),
      FeatureGatesModule.forRoot(new FeatureGates({ InPlaceUpdates: true, RuntimeSDK: true })),
      SsaModule.forRoot(),
      MachineControllerModule.forRoot({ imports: [TestRuntimeClientModule], nodePollIntervalMs: 200 }),
      // A short update: done on the second UpdateMachine call, one second after the first.
      InMemoryProviderModule.forRoot({
        provisioningDelayMs: 0,
        inPlaceUpdater: { updateDurationSeconds: 0, updateJitterSeconds: 0, retryAfterSeconds: 1 },
      }),
    ],
  }).compile();
  app.useLogger(false);
  await app.init();
  client = app.get<Client>(KUBE_CLIENT);
  const updater = app.get<RunningInPlaceUpdater>(INMEMORY_INPLACE_UPDATER);
  registry.warmUp([await discoverExtension(extensionConfigFor('inmemory', updater), transport)]);
});
afterAll(async () => {
  await app?.close();
  transport.close();
  await env?.stop();
});

const machineRef = { apiVersion: CLUSTER_API_VERSION, kind: 'Machine', namespace: NS, name: 'w-0' };
const infraRef = { apiVersion: INMEMORY_API_VERSION, kind: 'InMemoryMachine', namespace: NS, name: 'w-0' };
const configRef = { apiVersion: BOOTSTRAP_API_VERSION, kind: 'KubeadmConfig', namespace: NS, name: 'w-0' };
const annotate = (ref: typeof machineRef, annotations: Record<string, string>, spec?: Record<string, unknown>) =>
  client.patch(ref, 'merge', { metadata: { annotations }, ...(spec ? { spec } : {}) });

it('Machine + KubeadmConfig + InMemoryMachine reach Running with the workload Node as nodeRef', async () => {
  const cluster = await client.create<KubeObject>({
    apiVersion: CLUSTER_API_VERSION,
    kind: 'Cluster',
    metadata: { name: 'e2e', namespace: NS },
    spec: { infrastructureRef: { apiGroup: INFRASTRUCTURE_GROUP, kind: 'InMemoryCluster', name: 'e2e' } },
  });
  // No Cluster controller in this project yet: report the Cluster as a Cluster controller would.
  await client.updateStatus({
    ...cluster,
    status: { initialization: { infrastructureProvisioned: true, controlPlaneInitialized: true } },
  });
  await client.create({
    apiVersion: INMEMORY_API_VERSION,
    kind: 'InMemoryCluster',
    metadata: {
      name: 'e2e',
      namespace: NS,
      ownerReferences: [{ apiVersion: CLUSTER_API_VERSION, kind: 'Cluster', name: 'e2e', uid: cluster.metadata.uid! }],
    },
    spec: {},
  });
  await client.create({
    apiVersion: BOOTSTRAP_API_VERSION,
    kind: 'KubeadmConfig',
    metadata: { name: 'w-0', namespace: NS },
    spec: { joinConfiguration: {} },
  });
  await client.create({
    apiVersion: INMEMORY_API_VERSION,
    kind: 'InMemoryMachine',
    metadata: { name: 'w-0', namespace: NS },
    spec: { resources: { cpu: 2 } },
  });
  await client.create<Machine>({
    apiVersion: CLUSTER_API_VERSION,
    kind: 'Machine',
    metadata: { name: 'w-0', namespace: NS, labels: { 'cluster.x-k8s.io/cluster-name': 'e2e' } },
    spec: {
      clusterName: 'e2e',
      version: 'v1.31.4',
      bootstrap: { configRef: { apiGroup: 'bootstrap.cluster.x-k8s.io', kind: 'KubeadmConfig', name: 'w-0' } },
      infrastructureRef: { apiGroup: INFRASTRUCTURE_GROUP, kind: 'InMemoryMachine', name: 'w-0' },
    },
  });

  const running = await eventually(
    async () => {
      const m = await client.get<Machine>(machineRef);
      return m.status?.phase === 'Running' && m.status.nodeRef ? m : undefined;
    },
    { message: 'Machine Running with nodeRef', timeoutMs: 45_000 },
  );
  expect(running.spec.providerID).toBe('in-memory://e2e/w-0');
  expect(running.spec.bootstrap.dataSecretName).toBe('w-0');
  expect(running.status?.nodeRef?.name).toBe('w-0');
  expect((running.status?.nodeInfo as { kubeletVersion?: string } | undefined)?.kubeletVersion).toBe('v1.31.4');
  expect(running.status?.initialization).toMatchObject({
    infrastructureProvisioned: true,
    bootstrapDataSecretCreated: true,
  });
});

it('an in-place update marked on the Machine is executed by the updater on the host: Node at the new version, markers cleared', async () => {
  // What KCP / the MachineSet do when they trigger an in-place update (write order of upstream
  // controlplane/kubeadm/reconcilers/kubeadmcontrolplane/inplace_trigger.go).
  await annotate(machineRef, { [UPDATE_IN_PROGRESS_ANNOTATION]: '' });
  await annotate(infraRef, { [UPDATE_IN_PROGRESS_ANNOTATION]: '' }, { resources: { cpu: 6 } });
  await annotate(configRef, { [UPDATE_IN_PROGRESS_ANNOTATION]: '' });
  await client.patch(machineRef, 'merge', { spec: { version: 'v1.32.1' } });
  await annotate(machineRef, { [PENDING_HOOKS_ANNOTATION]: 'UpdateMachine' });

  const workload = await app.get<WorkloadClusterClientProvider>(WORKLOAD_CLUSTER_CLIENT_PROVIDER)({
    namespace: NS,
    name: 'e2e',
  });
  const node = await eventually(
    async () => {
      const n = await workload.get({ apiVersion: 'v1', kind: 'Node', name: 'w-0' });
      return kubeletVersionOf(n) === 'v1.32.1' ? n : undefined;
    },
    { message: 'Node at v1.32.1', timeoutMs: 30_000 },
  );
  expect((node.status as { capacity: Record<string, string> }).capacity.cpu).toBe('6');
  await eventually(
    async () => {
      const m = await client.get<Machine>(machineRef);
      const a = m.metadata.annotations ?? {};
      const updating = m.status?.conditions?.find((c) => c.type === 'Updating');
      return !(UPDATE_IN_PROGRESS_ANNOTATION in a) && !(PENDING_HOOKS_ANNOTATION in a) && updating?.status === 'False';
    },
    { message: 'in-place markers removed and Updating=False', timeoutMs: 30_000 },
  );
  expect((await client.get(infraRef)).metadata.annotations?.[UPDATE_IN_PROGRESS_ANNOTATION]).toBeUndefined();
  // The Machine reports what its Node now runs.
  await eventually(
    async () =>
      ((await client.get<Machine>(machineRef)).status?.nodeInfo as { kubeletVersion?: string } | undefined)
        ?.kubeletVersion === 'v1.32.1',
    { message: 'Machine nodeInfo updated', timeoutMs: 30_000 },
  );
});

it('deleting the Machine deletes the InMemoryMachine and its Node', async () => {
  const workload = await app.get<WorkloadClusterClientProvider>(WORKLOAD_CLUSTER_CLIENT_PROVIDER)({
    namespace: NS,
    name: 'e2e',
  });
  await client.delete(machineRef);
  await eventually(async () => !(await client.tryGet(machineRef)), { message: 'Machine gone', timeoutMs: 30_000 });
  expect(await client.tryGet(infraRef)).toBeUndefined();
  expect(await workload.tryGet({ apiVersion: 'v1', kind: 'Node', name: 'w-0' })).toBeUndefined();
});
