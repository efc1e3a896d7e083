// Integration harness: envtest + KCP + Machine and Cluster controllers + in-memory infra/bootstrap provider (workload clusters are
// embedded API servers with Nodes) + the reference in-place updater wired to the in-memory hosts.
import type { INestApplicationContext } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import {
  CLUSTER_API_VERSION,
  CLUSTER_NAME_LABEL,
  CONTROLPLANE_API_VERSION,
  INFRASTRUCTURE_GROUP,
  UP_TO_DATE_CONDITION,
  getCondition,
  isUpdateInProgress,
  type KubeadmControlPlane,
  type Machine,
} from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import {
  CACHED_CLIENT,
  ControllerRuntimeModule,
  FeatureGates,
  FeatureGatesModule,
  KubeClient,
  type Client,
} from '@capi/controller-runtime';
import { eventually, extensionConfigFor, kubeConfigFor, startEnvtest, type Envtest } from '@capi/envtest';
import {
  INMEMORY_API_VERSION,
  INMEMORY_INPLACE_UPDATER,
  InMemoryProviderModule,
  registerInMemoryKinds,
} from '@capi/inmemory';
import type { RunningInPlaceUpdater } from '@capi/inplace-updater';
import { MachineControllerModule } from '@capi/machine';
import { createTestRuntimeClient } from '@capi/runtime-client/testing';
import { createExtensionServer, discoverExtension, type ExtensionServer } from '@capi/runtime-client';
import { SsaModule } from '@capi/ssa';
import { KCP_WORKLOAD_CLUSTER_PROVIDER, KcpControllerModule } from '@capi/kcp';
import { ClusterControllerModule } from '@capi/cluster';
import { SHARED_WORKLOAD_CLUSTER_CACHE, type WorkloadClusterCache } from '@capi/clustercache';
import { etcdClientGeneratorFactory } from '../../src/etcd-access';
import { KubeconfigWorkloadClusterProvider } from '../../src/workload-cluster';
import { RecordingEtcdWorkloadClusterProvider } from './recording-etcd';
import { TEST_RATE_LIMITING } from '@capi/controller-runtime/testing';
import { managerSecretCacheOptions } from '@capi/certs';

export const NS = 'kcp-it';
export const CLUSTER = 'c1';
export const KCP_NAME = 'cp';

export interface KcpHarness {
  env: Envtest;
  client: KubeClient;
  app: INestApplicationContext;
  close(): Promise<void>;
  registerUpdater(): Promise<void>;
  /** Registers one more updater (ExtensionConfig `name`) served by `handlers`, as discovery would; closed with close(). */
  addExtension(name: string, handlers: Parameters<typeof createExtensionServer>[0]['handlers']): Promise<void>;
  /** The etcd operations KCP asked the workload cluster for (recorded, not performed). */
  etcd: RecordingEtcdWorkloadClusterProvider;
}

export async function startKcpHarness(opts: {
  inPlaceUpdates: boolean;
  /** KcpControllerOptions.inPlaceOnlyRecheckMs (default: the controller's). */
  inPlaceOnlyRecheckMs?: number;
  /** Called with the compiled module before the manager starts (e.g. to wrap the client its cache watches with). */
  beforeStart?: (app: TestingModule) => void;
}): Promise<KcpHarness> {
  registerInMemoryKinds(); // before the envtest installs the registered CRDs
  const env = await startEnvtest();
  const kc = kubeConfigFor(env);
  const client = new KubeClient(kc);
  const { registry, transport, module: runtimeClientModule } = createTestRuntimeClient(client);
  const extraServers: ExtensionServer[] = [];

  const moduleRef = await Test.createTestingModule({
    imports: [
      ControllerRuntimeModule.forRoot({
        ...managerSecretCacheOptions(),
        kubeconfig: kc,
        gracefulShutdownTimeoutMs: 5000,
        ...TEST_RATE_LIMITING,
      }),
      FeatureGatesModule.forRoot(
        new FeatureGates({ InPlaceUpdates: opts.inPlaceUpdates, RuntimeSDK: opts.inPlaceUpdates }),
      ),
      SsaModule.forRoot(),
      MachineControllerModule.forRoot({ imports: [runtimeClientModule], nodePollIntervalMs: 300 }),
      InMemoryProviderModule.forRoot({
        provisioningDelayMs: 50,
        inPlaceUpdater: { updateDurationSeconds: 0, updateJitterSeconds: 0, retryAfterSeconds: 1 },
      }),
      KcpControllerModule.forRoot({
        imports: [runtimeClientModule],
        preflightRequeueMs: 300,
        preflightDeferMs: 300,
        inPlaceOnlyRecheckMs: opts.inPlaceOnlyRecheckMs,
      }),
      ClusterControllerModule.forRoot(),
    ],
  })
    .overrideProvider(KCP_WORKLOAD_CLUSTER_PROVIDER)
    .useFactory({
      inject: [SHARED_WORKLOAD_CLUSTER_CACHE, CACHED_CLIENT],
      // The module's default provider (etcd through the workload API server's port-forward), recording etcd writes.
      factory: (nodes: WorkloadClusterCache, management: Client) =>
        new RecordingEtcdWorkloadClusterProvider(
          new KubeconfigWorkloadClusterProvider(nodes, etcdClientGeneratorFactory(management)),
        ),
    })
    .compile();
  const app = moduleRef;
  app.useLogger(process.env.KCP_TEST_LOGS ? ['error', 'warn', 'log'] : ['error']);
  opts.beforeStart?.(app);
  await app.init();

  return {
    env,
    client,
    app,
    etcd: app.get(KCP_WORKLOAD_CLUSTER_PROVIDER),
    registerUpdater: async () => {
      const updater = app.get<RunningInPlaceUpdater>(INMEMORY_INPLACE_UPDATER);
      registry.add(
        await discoverExtension(extensionConfigFor('inmemory-updater', updater, { resourceVersion: '1' }), transport),
      );
    },
    addExtension: async (name, handlers) => {
      const server = await createExtensionServer({ tls: 'generate', handlers });
      extraServers.push(server);
      registry.add(
        await discoverExtension(
          {
            apiVersion: 'runtime.cluster.x-k8s.io/v1beta2',
            kind: 'ExtensionConfig',
            metadata: { name, resourceVersion: '1' },
            spec: { clientConfig: { url: server.url, caBundle: server.caBundle } },
          },
          transport,
        ),
      );
    },
    close: async () => {
      await app.close();
      for (const server of extraServers) await server.close();
      transport.close();
      client.close();
      await env.stop();
    },
  };
}

export const infraTemplate = (name: string, spec: Record<string, unknown>): KubeObject => ({
  apiVersion: INMEMORY_API_VERSION,
  kind: 'InMemoryMachineTemplate',
  metadata: { name, namespace: NS },
  spec: { template: { spec } },
});

/** Namespace, Cluster, InMemoryCluster, template and a KCP with `replicas` (maxSurge 0 unless given). */
export async function createControlPlane(
  client: KubeClient,
  opts: {
    replicas: number;
    maxSurge?: number;
    machineTemplateMetadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  },
): Promise<void> {
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  await client.create(infraTemplate('tmpl-a', { image: 'ubuntu-22.04', resources: { cpu: 2, memoryMiB: 2048 } }));
  await client.create({
    apiVersion: INMEMORY_API_VERSION,
    kind: 'InMemoryCluster',
    metadata: { name: CLUSTER, namespace: NS, labels: { [CLUSTER_NAME_LABEL]: CLUSTER } },
    spec: {},
  });
  await client.create({
    apiVersion: CLUSTER_API_VERSION,
    kind: 'Cluster',
    metadata: { name: CLUSTER, namespace: NS },
    spec: {
      controlPlaneRef: { apiGroup: 'controlplane.cluster.x-k8s.io', kind: 'KubeadmControlPlane', name: KCP_NAME },
      infrastructureRef: { apiGroup: INFRASTRUCTURE_GROUP, kind: 'InMemoryCluster', name: CLUSTER },
    },
  });
  const kcp: KubeadmControlPlane = {
    apiVersion: CONTROLPLANE_API_VERSION,
    kind: 'KubeadmControlPlane',
    metadata: { name: KCP_NAME, namespace: NS, labels: { [CLUSTER_NAME_LABEL]: CLUSTER } },
    spec: {
      replicas: opts.replicas,
      version: 'v1.30.0',
      machineTemplate: {
        ...(opts.machineTemplateMetadata ? { metadata: opts.machineTemplateMetadata } : {}),
        spec: {
          infrastructureRef: { apiGroup: INFRASTRUCTURE_GROUP, kind: 'InMemoryMachineTemplate', name: 'tmpl-a' },
        },
      },
      kubeadmConfigSpec: {
        clusterConfiguration: { etcd: { local: { imageTag: '3.5.12' } } },
        files: [{ path: '/etc/motd', content: 'hello' }],
      },
      rollout: { strategy: { rollingUpdate: { maxSurge: opts.maxSurge ?? 0 } } },
    },
  };
  await client.create(kcp);
}

export async function getKcp(client: KubeClient): Promise<KubeadmControlPlane> {
  return client.get<KubeadmControlPlane>({
    apiVersion: CONTROLPLANE_API_VERSION,
    kind: 'KubeadmControlPlane',
    namespace: NS,
    name: KCP_NAME,
  });
}

export async function listMachines(client: KubeClient): Promise<Machine[]> {
  return (await client.list<Machine>(CLUSTER_API_VERSION, 'Machine', { namespace: NS })).items;
}

/** How the KCP suites poll (envtest + in-memory provider rollouts take tens of seconds). */
export const KCP_POLL = { timeoutMs: 40_000, intervalMs: 200 };

/** Waits until the KCP reports `replicas` Machines all up-to-date, with Nodes, at `version`. */
export async function waitForStableControlPlane(h: KcpHarness, replicas: number, version: string): Promise<Machine[]> {
  return eventually(
    async () => {
      const kcp = await getKcp(h.client);
      const machines = await listMachines(h.client);
      const ok =
        kcp.status?.replicas === replicas &&
        kcp.status.upToDateReplicas === replicas &&
        machines.length === replicas &&
        machines.every(
          (m) =>
            m.spec.version === version &&
            m.status?.nodeRef &&
            !m.metadata.deletionTimestamp &&
            !isUpdateInProgress(m) &&
            getCondition(m, UP_TO_DATE_CONDITION)?.status === 'True',
        );
      return ok ? machines : undefined;
    },
    { ...KCP_POLL, message: `${replicas} up-to-date control plane Machines at ${version}` },
  );
}
