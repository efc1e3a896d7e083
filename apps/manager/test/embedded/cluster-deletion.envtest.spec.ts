// `kubectl delete cluster` through the real manager (embedded API server, every controller, the in-memory provider):
// a Cluster with a KubeadmControlPlane and a MachineDeployment goes entirely, in upstream's order
// (core/reconcilers/cluster/cluster_controller.go reconcileDelete): workers before the control plane, the control plane
// before the infrastructure cluster, the Cluster last.
import 'reflect-metadata';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  BOOTSTRAP_API_VERSION,
  BOOTSTRAP_GROUP,
  CLUSTER_API_VERSION,
  CLUSTER_NAME_LABEL,
  CONTROLPLANE_API_VERSION,
  CONTROLPLANE_GROUP,
  INFRASTRUCTURE_GROUP,
  MACHINE_DEPLOYMENT_NAME_LABEL,
  type Cluster,
} from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import { KUBE_CLIENT, type Client } from '@capi/controller-runtime';
import { eventually } from '@capi/envtest';
import { INMEMORY_API_VERSION } from '@capi/inmemory';
import { buildManagerModule, JsonLogger, loadManagerConfig, LOGGER } from '@capi/manager';

jest.setTimeout(240_000);

const NS = 'default';
const NAME = 'del';
const clusterRef = { apiVersion: CLUSTER_API_VERSION, kind: 'Cluster', namespace: NS, name: NAME };

let app: INestApplicationContext;
let client: Client;
beforeAll(async () => {
  const loaded = loadManagerConfig(['--data-dir=', '--metrics-bind-address=0', '--health-probe-bind-address=0']);
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

/** Cluster, InMemoryCluster, KCP x1 and MachineDeployment x1 (owned by the Cluster, as a user or ClusterClass sets it). */
async function createCluster(): Promise<void> {
  const labels = { [CLUSTER_NAME_LABEL]: NAME };
  const cluster = await client.create<Cluster>({
    ...clusterRef,
    metadata: { name: NAME, namespace: NS },
    spec: {
      infrastructureRef: { apiGroup: INFRASTRUCTURE_GROUP, kind: 'InMemoryCluster', name: NAME },
      controlPlaneRef: { apiGroup: CONTROLPLANE_GROUP, kind: 'KubeadmControlPlane', name: `${NAME}-cp` },
    },
  });
  const owner = [{ apiVersion: CLUSTER_API_VERSION, kind: 'Cluster', name: NAME, uid: cluster.metadata.uid! }];
  await client.create({
    apiVersion: INMEMORY_API_VERSION,
    kind: 'InMemoryCluster',
    metadata: { name: NAME, namespace: NS, labels },
    spec: {},
  });
  const template = (name: string) =>
    client.create({
      apiVersion: INMEMORY_API_VERSION,
      kind: 'InMemoryMachineTemplate',
      metadata: { name, namespace: NS, labels },
      spec: { template: { spec: { image: 'ubuntu-24.04', resources: { cpu: 2, memoryMiB: 2048 } } } },
    });
  const infraRef = (name: string) => ({ apiGroup: INFRASTRUCTURE_GROUP, kind: 'InMemoryMachineTemplate', name });
  await template(`${NAME}-cp`);
  await client.create({
    apiVersion: CONTROLPLANE_API_VERSION,
    kind: 'KubeadmControlPlane',
    metadata: { name: `${NAME}-cp`, namespace: NS, labels },
    spec: {
      replicas: 1,
      version: 'v1.31.0',
      machineTemplate: { spec: { infrastructureRef: infraRef(`${NAME}-cp`) } },
      kubeadmConfigSpec: { clusterConfiguration: {}, initConfiguration: {}, joinConfiguration: {} },
    },
  });
  const md = `${NAME}-md-0`;
  await template(md);
  await client.create({
    apiVersion: BOOTSTRAP_API_VERSION,
    kind: 'KubeadmConfigTemplate',
    metadata: { name: md, namespace: NS, labels },
    spec: { template: { spec: { joinConfiguration: {} } } },
  });
  const selector = { ...labels, [MACHINE_DEPLOYMENT_NAME_LABEL]: md };
  await client.create({
    apiVersion: CLUSTER_API_VERSION,
    kind: 'MachineDeployment',
    metadata: { name: md, namespace: NS, labels, ownerReferences: owner },
    spec: {
      clusterName: NAME,
      replicas: 1,
      selector: { matchLabels: selector },
      template: {
        metadata: { labels: selector },
        spec: {
          clusterName: NAME,
          version: 'v1.31.0',
          bootstrap: { configRef: { apiGroup: BOOTSTRAP_GROUP, kind: 'KubeadmConfigTemplate', name: md } },
          infrastructureRef: infraRef(md),
        },
      },
    },
  });
}

const list = async (apiVersion: string, kind: string) =>
  (await client.list<KubeObject>(apiVersion, kind, { namespace: NS })).items;
const isWorker = (m: KubeObject) => !('cluster.x-k8s.io/control-plane' in (m.metadata.labels ?? {}));

it('deleting a Cluster removes everything: workers, then the control plane, then the infrastructure, then it', async () => {
  await createCluster();
  await eventually(
    async () => {
      const c = await client.tryGet<Cluster>(clusterRef);
      const machines = await list(CLUSTER_API_VERSION, 'Machine');
      return (
        c?.status?.phase === 'Provisioned' &&
        c.status.initialization?.controlPlaneInitialized &&
        machines.length === 2 &&
        machines.every((m) => (m.status as { nodeRef?: unknown } | undefined)?.nodeRef)
      );
    },
    { message: 'the Cluster provisioned with 2 Machines with Nodes', timeoutMs: 120_000, intervalMs: 250 },
  );
  // kubectl wait --for=condition=Available cluster/del; kubectl get clusters -o wide: CP DESIRED 1, W DESIRED 1.
  const available = await eventually(
    async () => {
      const c = await client.tryGet<Cluster>(clusterRef);
      return c?.status?.conditions?.find((x) => x.type === 'Available')?.status === 'True' && c;
    },
    { message: 'Available=True', timeoutMs: 120_000, intervalMs: 250 },
  );
  expect(available.status?.controlPlane?.desiredReplicas).toBe(1);
  expect(available.status?.workers?.desiredReplicas).toBe(1);
  // The Cluster controller adopted what its refs name.
  for (const [apiVersion, kind, name] of [
    [CONTROLPLANE_API_VERSION, 'KubeadmControlPlane', `${NAME}-cp`],
    [INMEMORY_API_VERSION, 'InMemoryCluster', NAME],
  ]) {
    const o = await client.get<KubeObject>({ apiVersion, kind, namespace: NS, name });
    expect(o.metadata.ownerReferences?.filter((r) => r.kind === 'Cluster').map((r) => r.name)).toEqual([NAME]);
  }

  await client.delete(clusterRef);
  // At every look: a deleting control plane means no worker is left; no infrastructure means no control plane.
  const violations: string[] = [];
  const seen = new Set<string>();
  await eventually(
    async () => {
      const [mds, machines, kcps, infras, clusters] = await Promise.all([
        list(CLUSTER_API_VERSION, 'MachineDeployment'),
        list(CLUSTER_API_VERSION, 'Machine'),
        list(CONTROLPLANE_API_VERSION, 'KubeadmControlPlane'),
        list(INMEMORY_API_VERSION, 'InMemoryCluster'),
        list(CLUSTER_API_VERSION, 'Cluster'),
      ]);
      const workers = [...mds, ...machines.filter(isWorker)];
      if (kcps.some((k) => k.metadata.deletionTimestamp)) {
        seen.add('control plane deleting');
        if (workers.length) violations.push(`control plane deleting while ${workers.length} worker objects exist`);
      }
      if (infras.some((i) => i.metadata.deletionTimestamp) && kcps.length)
        violations.push('infrastructure cluster deleting while the control plane exists');
      if (clusters.length && !infras.length && kcps.length)
        violations.push('infrastructure gone before the control plane');
      return clusters.length === 0;
    },
    { message: 'the Cluster gone', timeoutMs: 120_000, intervalMs: 50 },
  );
  expect(violations).toEqual([]);
  // The control plane takes several reconciles to go (its Machine drains); the InMemoryCluster may go between looks.
  expect(seen).toContain('control plane deleting');
  for (const [apiVersion, kind] of [
    [CLUSTER_API_VERSION, 'MachineDeployment'],
    [CLUSTER_API_VERSION, 'MachineSet'],
    [CLUSTER_API_VERSION, 'Machine'],
    [CONTROLPLANE_API_VERSION, 'KubeadmControlPlane'],
    [INMEMORY_API_VERSION, 'InMemoryCluster'],
    [INMEMORY_API_VERSION, 'InMemoryMachine'],
  ])
    expect(`${kind}: ${(await list(apiVersion, kind)).map((o) => o.metadata.name).join(',')}`).toBe(`${kind}: `);
});
