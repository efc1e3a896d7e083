// A small Cluster written straight to the API server (no controllers run: statuses are set as the controllers would
// set them), and the reference updater's hooks behind an ExtensionConfig discovered as the manager does.
import {
  CLUSTER_API_VERSION,
  type Condition,
  type ExtensionConfig,
  type KubeadmConfig,
  type KubeadmControlPlane,
  type Machine,
  type MachineDeployment,
  type MachineSet,
} from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import type { KubeClient } from '@capi/controller-runtime';
import { extensionConfigFor } from '@capi/envtest';
import { kcp as kcpFixture, kubeadmConfig as kubeadmConfigFixture } from '@capi/kcp/testing';
import { HANDLER_NAMES, InPlaceUpdaterHandlers } from '@capi/inplace-updater';
import {
  createExtensionServer,
  discoverExtension,
  HttpsExtensionTransport,
  type ExtensionServer,
} from '@capi/runtime-client';

export const INFRA_GROUP = 'infrastructure.cluster.x-k8s.io';
export const INFRA_API_VERSION = `${INFRA_GROUP}/v1beta2`;
export const T0 = '2026-01-01T00:00:00Z';

export const condition = (type: string, status: Condition['status'], reason = type, message?: string): Condition => ({
  type,
  status,
  reason,
  lastTransitionTime: T0,
  ...(message ? { message } : {}),
});

async function createWithStatus<T extends KubeObject>(client: KubeClient, obj: T, status?: unknown): Promise<T> {
  const created = await client.create<T>(obj);
  if (status === undefined) return created;
  return client.updateStatus<T>({ ...created, status } as T);
}

export interface TestCluster {
  namespace: string;
  md: MachineDeployment;
  ms: MachineSet;
  machines: Machine[];
}

/**
 * Cluster `c1` in `namespace`: MachineDeployment `md` (2 replicas, v1.30.0, TestMachineTemplate `tmpl`) → MachineSet
 * `md-old` → Machines `md-old-a` and `md-old-b`, all up to date; `md-old-b` is being updated in place by `in-place`.
 */
export async function createTestCluster(client: KubeClient, namespace: string): Promise<TestCluster> {
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  const labels = { 'cluster.x-k8s.io/cluster-name': 'c1' };
  await createWithStatus(
    client,
    { apiVersion: CLUSTER_API_VERSION, kind: 'Cluster', metadata: { name: 'c1', namespace }, spec: {} },
    { conditions: [condition('Available', 'True')], workers: { desiredReplicas: 2, replicas: 2, upToDateReplicas: 2 } },
  );
  await client.create({
    apiVersion: INFRA_API_VERSION,
    kind: 'TestMachineTemplate',
    metadata: { name: 'tmpl', namespace },
    spec: { template: { spec: { image: 'image-1' } } },
  });
  const template = {
    metadata: { labels: { ...labels, 'cluster.x-k8s.io/deployment-name': 'md' } },
    spec: {
      clusterName: 'c1',
      version: 'v1.30.0',
      bootstrap: { dataSecretName: 'bootstrap-data' },
      infrastructureRef: { apiGroup: INFRA_GROUP, kind: 'TestMachineTemplate', name: 'tmpl' },
    },
  };
  const md = await createWithStatus<MachineDeployment>(
    client,
    {
      apiVersion: CLUSTER_API_VERSION,
      kind: 'MachineDeployment',
      metadata: { name: 'md', namespace, labels },
      spec: {
        clusterName: 'c1',
        replicas: 2,
        selector: { matchLabels: { 'cluster.x-k8s.io/deployment-name': 'md' } },
        template,
        rollout: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } } },
      },
    } as unknown as MachineDeployment,
    {
      observedGeneration: 1,
      replicas: 2,
      upToDateReplicas: 2,
      availableReplicas: 2,
      readyReplicas: 2,
      conditions: [condition('Available', 'True')],
    },
  );
  const msLabels = { ...labels, 'cluster.x-k8s.io/deployment-name': 'md', 'machine-template-hash': 'old' };
  const ms = await createWithStatus<MachineSet>(
    client,
    {
      apiVersion: CLUSTER_API_VERSION,
      kind: 'MachineSet',
      metadata: {
        name: 'md-old',
        namespace,
        labels: msLabels,
        ownerReferences: [
          {
            apiVersion: CLUSTER_API_VERSION,
            kind: 'MachineDeployment',
            name: 'md',
            uid: md.metadata.uid ?? '',
            controller: true,
          },
        ],
      },
      spec: {
        clusterName: 'c1',
        replicas: 2,
        selector: { matchLabels: { 'machine-template-hash': 'old' } },
        template: { ...template, metadata: { labels: msLabels } },
      },
    } as unknown as MachineSet,
    { replicas: 2, upToDateReplicas: 2 },
  );
  const machines: Machine[] = [];
  for (const [suffix, updating] of [
    ['a', false],
    ['b', true],
  ] as const) {
    machines.push(
      await createWithStatus<Machine>(
        client,
        {
          apiVersion: CLUSTER_API_VERSION,
          kind: 'Machine',
          metadata: {
            name: `md-old-${suffix}`,
            namespace,
            labels: { ...msLabels, 'cluster.x-k8s.io/set-name': 'md-old' },
            annotations: updating
              ? {
                  'in-place-updates.internal.cluster.x-k8s.io/update-in-progress': '',
                  'runtime.cluster.x-k8s.io/pending-hooks': 'UpdateMachine',
                  'in-place-updates.capi-inplace.io/updaters': 'in-place',
                }
              : undefined,
            ownerReferences: [
              {
                apiVersion: CLUSTER_API_VERSION,
                kind: 'MachineSet',
                name: 'md-old',
                uid: ms.metadata.uid ?? '',
                controller: true,
              },
            ],
          },
          spec: {
            ...template.spec,
            infrastructureRef: { apiGroup: INFRA_GROUP, kind: 'TestMachine', name: `md-old-${suffix}` },
          },
        } as unknown as Machine,
        {
          conditions: [
            condition('Ready', 'True'),
            condition('Available', 'True'),
            condition('UpToDate', updating ? 'False' : 'True', updating ? 'Updating' : 'UpToDate'),
            ...(updating ? [condition('Updating', 'True', 'InPlaceUpdating', 'Updating in place')] : []),
          ],
        },
      ),
    );
  }
  return { namespace, md, ms, machines };
}

/** The reference updater's Can* hooks on a test server, registered with a discovered ExtensionConfig `in-place`. */
export async function registerUpdater(client: KubeClient): Promise<ExtensionServer> {
  const updater = new InPlaceUpdaterHandlers({ updateDurationSeconds: 0, updateJitterSeconds: 0 });
  const server = await createExtensionServer({
    tls: 'generate',
    handlers: [
      {
        hook: 'CanUpdateMachineSet',
        name: HANDLER_NAMES.CanUpdateMachineSet,
        handle: (req) => updater.canUpdateMachineSet(req),
      },
      {
        hook: 'CanUpdateMachine',
        name: HANDLER_NAMES.CanUpdateMachine,
        handle: (req) => updater.canUpdateMachine(req),
      },
    ],
  });
  const ec = extensionConfigFor('in-place', server);
  const discovered = await discoverExtension(ec as never, new HttpsExtensionTransport());
  const created = await client.create<ExtensionConfig>(ec);
  await client.updateStatus<ExtensionConfig>({
    ...created,
    status: (discovered as unknown as ExtensionConfig).status,
  } as ExtensionConfig);
  return server;
}

export interface TestControlPlane {
  kcp: KubeadmControlPlane;
  machines: Machine[];
  kubeadmConfigs: KubeadmConfig[];
  infraMachines: KubeObject[];
}

/**
 * KubeadmControlPlane `cp` of Cluster `c1` (2 replicas, maxSurge 0, v1.30.0, TestMachineTemplate `tmpl`) with
 * Machines `cp-a` and `cp-b`, each with the KubeadmConfig KCP would have created for it (@capi/kcp/testing) and a
 * TestMachine cloned from `tmpl`: all up to date.
 */
export async function createTestControlPlane(client: KubeClient, namespace: string): Promise<TestControlPlane> {
  const base = kcpFixture({
    replicas: 2,
    version: 'v1.30.0',
    machineTemplate: {
      spec: { infrastructureRef: { apiGroup: INFRA_GROUP, kind: 'TestMachineTemplate', name: 'tmpl' } },
    },
    rollout: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0 } } },
  });
  const kcp = await client.create<KubeadmControlPlane>({
    ...base,
    metadata: { name: 'cp', namespace, labels: { 'cluster.x-k8s.io/cluster-name': 'c1' } },
  });
  const labels = {
    'cluster.x-k8s.io/cluster-name': 'c1',
    'cluster.x-k8s.io/control-plane': '',
    'cluster.x-k8s.io/control-plane-name': 'cp',
  };
  const owner = {
    apiVersion: kcp.apiVersion,
    kind: 'KubeadmControlPlane',
    name: 'cp',
    uid: kcp.metadata.uid ?? '',
    controller: true,
  };
  const out: TestControlPlane = { kcp, machines: [], kubeadmConfigs: [], infraMachines: [] };
  for (const [i, name] of ['cp-a', 'cp-b'].entries()) {
    const fixture = kubeadmConfigFixture(name, kcp, { init: i === 0 });
    out.kubeadmConfigs.push(
      await client.create<KubeadmConfig>({
        ...fixture,
        metadata: { name, namespace, labels, ownerReferences: [owner] },
      }),
    );
    out.infraMachines.push(
      await client.create({
        apiVersion: INFRA_API_VERSION,
        kind: 'TestMachine',
        metadata: {
          name,
          namespace,
          labels,
          annotations: {
            'cluster.x-k8s.io/cloned-from-name': 'tmpl',
            'cluster.x-k8s.io/cloned-from-groupkind': `TestMachineTemplate.${INFRA_GROUP}`,
          },
        },
        spec: { image: 'image-1' },
      }),
    );
    out.machines.push(
      await client.create<Machine>({
        apiVersion: CLUSTER_API_VERSION,
        kind: 'Machine',
        metadata: { name, namespace, labels, ownerReferences: [owner] },
        spec: {
          clusterName: 'c1',
          version: 'v1.30.0',
          bootstrap: { configRef: { apiGroup: 'bootstrap.cluster.x-k8s.io', kind: 'KubeadmConfig', name } },
          infrastructureRef: { apiGroup: INFRA_GROUP, kind: 'TestMachine', name },
        },
      } as Machine),
    );
  }
  return out;
}
