// End to end with the real Machine controller (@capi/machine): a Machine with a KubeadmConfig and an InMemoryMachine
// goes to Running with a nodeRef to the Node this provider registered in the workload cluster.
import { Test, type TestingModule } from '@nestjs/testing';
import { KubeConfig } from '@kubernetes/client-node';
import { BOOTSTRAP_API_VERSION, CLUSTER_API_VERSION, INFRASTRUCTURE_GROUP, type Machine } from '@capi/api';
import { ControllerRuntimeModule, KUBE_CLIENT, type Client, type KubeObject } from '@capi/controller-runtime';
import { startEnvtest, type Envtest } from '@capi/envtest';
import { MachineControllerModule } from '@capi/machine';
import { SsaModule } from '@capi/ssa';
import { registerInMemoryKinds } from '../api/register';
import { INMEMORY_API_VERSION } from '../api/types';
import { InMemoryProviderModule } from '../inmemory-provider.module';
import { eventually } from '../testing/eventually';
import { NS } from '../testing/fixtures';

jest.setTimeout(60_000);

let env: Envtest;
let app: TestingModule;
let client: Client;

beforeAll(async () => {
  registerInMemoryKinds();
  env = await startEnvtest();
  const kc = new KubeConfig();
  kc.loadFromString(env.kubeconfig);
  app = await Test.createTestingModule({
    imports: [
      ControllerRuntimeModule.forRoot({ kubeconfig: kc, fieldManager: 'test' }),
      SsaModule.forRoot(),
      MachineControllerModule.forRoot({ nodePollIntervalMs: 200 }),
      InMemoryProviderModule.forRoot({ provisioningDelayMs: 0 }),
    ],
  }).compile();
  app.useLogger(false);
  await app.init();
  client = app.get<Client>(KUBE_CLIENT);
});
afterAll(async () => {
  await app?.close();
  await env?.stop();
});

it('Machine + KubeadmConfig + InMemoryMachine reach Running with the workload Node as nodeRef', async () => {
  const cluster = await client.create<KubeObject>({
    apiVersion: CLUSTER_API_VERSION,
    kind: 'Cluster',
    metadata: { name: 'e2e', namespace: NS },
    spec: { infrastructureRef: { apiGroup: INFRASTRUCTURE_GROUP, kind: 'InMemoryCluster', name: 'e2e' } },
  });
  // No Cluster controller in this project yet: report the Cluster as a Cluster controller would.
  await client.updateStatus({ ...cluster, status: { initialization: { infrastructureProvisioned: true, controlPlaneInitialized: true } } });
  await client.create({
    apiVersion: INMEMORY_API_VERSION,
    kind: 'InMemoryCluster',
    metadata: { name: 'e2e', namespace: NS, ownerReferences: [{ apiVersion: CLUSTER_API_VERSION, kind: 'Cluster', name: 'e2e', uid: cluster.metadata.uid! }] },
    spec: {},
  });
  await client.create({ apiVersion: BOOTSTRAP_API_VERSION, kind: 'KubeadmConfig', metadata: { name: 'w-0', namespace: NS }, spec: { joinConfiguration: {} } });
  await client.create({ apiVersion: INMEMORY_API_VERSION, kind: 'InMemoryMachine', metadata: { name: 'w-0', namespace: NS }, spec: { resources: { cpu: 2 } } });
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

  const running = await eventually(async () => {
    const m = await client.get<Machine>({ apiVersion: CLUSTER_API_VERSION, kind: 'Machine', namespace: NS, name: 'w-0' });
    return m.status?.phase === 'Running' && m.status.nodeRef ? m : undefined;
  }, 'Machine Running with nodeRef', 45_000);
  expect(running.spec.providerID).toBe('in-memory://e2e/w-0');
  expect(running.spec.bootstrap.dataSecretName).toBe('w-0');
  expect(running.status?.nodeRef?.name).toBe('w-0');
  expect((running.status?.nodeInfo as { kubeletVersion?: string } | undefined)?.kubeletVersion).toBe('v1.31.4');
  expect(running.status?.initialization).toMatchObject({ infrastructureProvisioned: true, bootstrapDataSecretCreated: true });
});
