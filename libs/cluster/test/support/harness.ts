// Integration harness: envtest + the Cluster controller alone, with the in-memory provider's CRDs installed (its
// controllers do not run: the tests play the provider). The whole stack's Cluster deletion is tested through the
// manager (apps/manager/test/embedded/cluster-deletion.envtest.spec.ts): a controller lib's tests do not start the
// KCP controller, whose own tests start this one.
import type { INestApplicationContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { CLUSTER_API_VERSION, CLUSTER_NAME_LABEL, INFRASTRUCTURE_GROUP, type Cluster } from '@capi/api';
import { ControllerRuntimeModule, KubeClient, type ObjectRef } from '@capi/controller-runtime';
import { kubeConfigFor, startEnvtest, type Envtest } from '@capi/envtest';
import { INMEMORY_API_VERSION, registerInMemoryKinds } from '@capi/inmemory';
import { SsaModule } from '@capi/ssa';
import { ClusterControllerModule } from '@capi/cluster';
import { TEST_RATE_LIMITING } from '@capi/controller-runtime/testing';
import { managerSecretCacheOptions } from '@capi/certs';

export interface ClusterHarness {
  env: Envtest;
  client: KubeClient;
  app: INestApplicationContext;
  close(): Promise<void>;
}

export async function startClusterHarness(): Promise<ClusterHarness> {
  registerInMemoryKinds(); // before the envtest installs the registered CRDs
  const env = await startEnvtest();
  const kc = kubeConfigFor(env);
  const client = new KubeClient(kc);
  const moduleRef = await Test.createTestingModule({
    imports: [
      ControllerRuntimeModule.forRoot({
        ...managerSecretCacheOptions(),
        kubeconfig: kc,
        gracefulShutdownTimeoutMs: 5000,
        ...TEST_RATE_LIMITING,
      }),
      SsaModule.forRoot(),
      ClusterControllerModule.forRoot(),
    ],
  }).compile();
  const app = moduleRef;
  app.useLogger(process.env.CLUSTER_TEST_LOGS ? ['error', 'warn', 'log'] : ['error']);
  await app.init();
  return {
    env,
    client,
    app,
    close: async () => {
      await app.close();
      client.close();
      await env.stop();
    },
  };
}

export const clusterRef = (ns: string, name: string): ObjectRef => ({
  apiVersion: CLUSTER_API_VERSION,
  kind: 'Cluster',
  namespace: ns,
  name,
});
export const inMemoryClusterRef = (ns: string, name: string): ObjectRef => ({
  apiVersion: INMEMORY_API_VERSION,
  kind: 'InMemoryCluster',
  namespace: ns,
  name,
});

export interface ClusterObjects {
  /** Create the InMemoryCluster the Cluster refers to (default true). */
  infraCluster?: boolean;
  paused?: boolean;
}

/** Namespace, Cluster and its InMemoryCluster, not owned by the Cluster yet (its controller adopts it). */
export async function createCluster(
  client: KubeClient,
  ns: string,
  name: string,
  o: ClusterObjects = {},
): Promise<Cluster> {
  const labels = { [CLUSTER_NAME_LABEL]: name };
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  // The infrastructure cluster first: a Cluster that finds none waits 30 s before looking again (upstream
  // externalReadyWait; the new object is not the Cluster's yet, so its creation does not bring a reconcile).
  if (o.infraCluster !== false)
    await client.create({ ...inMemoryClusterRef(ns, name), metadata: { name, namespace: ns, labels }, spec: {} });
  const cluster = await client.create<Cluster>({
    apiVersion: CLUSTER_API_VERSION,
    kind: 'Cluster',
    metadata: { name, namespace: ns },
    spec: {
      ...(o.paused ? { paused: true } : {}),
      infrastructureRef: { apiGroup: INFRASTRUCTURE_GROUP, kind: 'InMemoryCluster', name },
    },
  });
  return cluster;
}
