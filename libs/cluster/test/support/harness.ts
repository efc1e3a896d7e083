// Integration harness: envtest + the Cluster controller, optionally with the whole stack behind it (KCP, MachineSet/
// MachineDeployment, Machine controllers and the in-memory infrastructure/bootstrap provider), so a Cluster's
// creation and deletion run as in the manager.
import type { INestApplicationContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
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
import {
  ControllerRuntimeModule,
  FeatureGates,
  FeatureGatesModule,
  KubeClient,
  type ObjectRef,
} from '@capi/controller-runtime';
import { kubeConfigFor, startEnvtest, type Envtest } from '@capi/envtest';
import { INMEMORY_API_VERSION, InMemoryProviderModule, registerInMemoryKinds } from '@capi/inmemory';
import { KcpControllerModule } from '@capi/kcp';
import { MachineControllerModule } from '@capi/machine';
import { MachineSetModule } from '@capi/machineset';
import { SsaModule } from '@capi/ssa';
import { ClusterControllerModule } from '@capi/cluster';

export interface ClusterHarness {
  env: Envtest;
  client: KubeClient;
  app: INestApplicationContext;
  close(): Promise<void>;
}

/** `stack`: also the KCP, MachineSet/MachineDeployment and Machine controllers and the in-memory provider. */
export async function startClusterHarness(opts: { stack?: boolean } = {}): Promise<ClusterHarness> {
  registerInMemoryKinds(); // before the envtest installs the registered CRDs
  const env = await startEnvtest();
  const kc = kubeConfigFor(env);
  const client = new KubeClient(kc);
  const moduleRef = await Test.createTestingModule({
    imports: [
      ControllerRuntimeModule.forRoot({ kubeconfig: kc, gracefulShutdownTimeoutMs: 5000 }),
      FeatureGatesModule.forRoot(FeatureGates.defaults()),
      SsaModule.forRoot(),
      ClusterControllerModule.forRoot(),
      ...(opts.stack
        ? [
            InMemoryProviderModule.forRoot({ provisioningDelayMs: 50, inPlaceUpdater: false }),
            MachineControllerModule.forRoot({ nodePollIntervalMs: 300 }),
            MachineSetModule.forRoot(),
            KcpControllerModule.forRoot({ preflightRequeueMs: 300 }),
          ]
        : []),
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
  /** Create a KubeadmControlPlane with this many replicas (none: a Cluster without controlPlaneRef). */
  controlPlaneReplicas?: number;
  /** Create a MachineDeployment with this many replicas. */
  workerReplicas?: number;
  /** Create the InMemoryCluster the Cluster refers to (default true). */
  infraCluster?: boolean;
  paused?: boolean;
}

/** Namespace, Cluster and what it refers to, none of it owned by the Cluster yet (its controller adopts them). */
export async function createCluster(
  client: KubeClient,
  ns: string,
  name: string,
  o: ClusterObjects = {},
): Promise<Cluster> {
  const labels = { [CLUSTER_NAME_LABEL]: name };
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  const cluster = await client.create<Cluster>({
    apiVersion: CLUSTER_API_VERSION,
    kind: 'Cluster',
    metadata: { name, namespace: ns },
    spec: {
      ...(o.paused ? { paused: true } : {}),
      infrastructureRef: { apiGroup: INFRASTRUCTURE_GROUP, kind: 'InMemoryCluster', name },
      ...(o.controlPlaneReplicas !== undefined
        ? { controlPlaneRef: { apiGroup: CONTROLPLANE_GROUP, kind: 'KubeadmControlPlane', name: `${name}-cp` } }
        : {}),
    },
  });
  if (o.infraCluster !== false)
    await client.create({ ...inMemoryClusterRef(ns, name), metadata: { name, namespace: ns, labels }, spec: {} });
  const template = (tname: string): KubeObject => ({
    apiVersion: INMEMORY_API_VERSION,
    kind: 'InMemoryMachineTemplate',
    metadata: { name: tname, namespace: ns, labels },
    spec: { template: { spec: { image: 'ubuntu-24.04', resources: { cpu: 2, memoryMiB: 2048 } } } },
  });
  const infraTemplateRef = (tname: string) => ({
    apiGroup: INFRASTRUCTURE_GROUP,
    kind: 'InMemoryMachineTemplate',
    name: tname,
  });
  if (o.controlPlaneReplicas !== undefined) {
    await client.create(template(`${name}-cp`));
    await client.create({
      apiVersion: CONTROLPLANE_API_VERSION,
      kind: 'KubeadmControlPlane',
      metadata: { name: `${name}-cp`, namespace: ns, labels },
      spec: {
        replicas: o.controlPlaneReplicas,
        version: 'v1.31.0',
        machineTemplate: { spec: { infrastructureRef: infraTemplateRef(`${name}-cp`) } },
        kubeadmConfigSpec: { clusterConfiguration: {}, initConfiguration: {}, joinConfiguration: {} },
        rollout: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0 } } },
      },
    });
  }
  if (o.workerReplicas !== undefined) {
    const md = `${name}-md-0`;
    await client.create(template(md));
    await client.create({
      apiVersion: BOOTSTRAP_API_VERSION,
      kind: 'KubeadmConfigTemplate',
      metadata: { name: md, namespace: ns, labels },
      spec: { template: { spec: { joinConfiguration: {} } } },
    });
    const selector = { ...labels, [MACHINE_DEPLOYMENT_NAME_LABEL]: md };
    // Owned by the Cluster, as a ClusterClass or the user would set it: the Cluster's deletion deletes it.
    await client.create({
      apiVersion: CLUSTER_API_VERSION,
      kind: 'MachineDeployment',
      metadata: {
        name: md,
        namespace: ns,
        labels,
        ownerReferences: [{ apiVersion: CLUSTER_API_VERSION, kind: 'Cluster', name, uid: cluster.metadata.uid! }],
      },
      spec: {
        clusterName: name,
        replicas: o.workerReplicas,
        selector: { matchLabels: selector },
        template: {
          metadata: { labels: selector },
          spec: {
            clusterName: name,
            version: 'v1.31.0',
            bootstrap: { configRef: { apiGroup: BOOTSTRAP_GROUP, kind: 'KubeadmConfigTemplate', name: md } },
            infrastructureRef: infraTemplateRef(md),
          },
        },
      },
    });
  }
  return cluster;
}
