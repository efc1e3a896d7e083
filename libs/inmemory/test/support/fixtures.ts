// Objects and a Nest app for the provider's envtest specs.
import { Test, type TestingModule } from '@nestjs/testing';
import {
  BOOTSTRAP_API_VERSION,
  CLUSTER_API_VERSION,
  CLUSTER_NAME_LABEL,
  INFRASTRUCTURE_GROUP,
  MACHINE_CONTROL_PLANE_LABEL,
  type Cluster,
  type Machine,
} from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import {
  ControllerRuntimeModule,
  CountingClientMetrics,
  isAlreadyExists,
  KUBE_CLIENT,
  type Client,
} from '@capi/controller-runtime';
import { kubeConfigFor, startEnvtest, type Envtest } from '@capi/envtest';
import { SsaModule } from '@capi/ssa';
import {
  INMEMORY_API_VERSION,
  type InMemoryCluster,
  type InMemoryMachine,
  InMemoryProviderModule,
  type InMemoryProviderOptions,
  registerInMemoryKinds,
} from '@capi/inmemory';
import { TEST_RATE_LIMITING } from '@capi/controller-runtime/testing';
import { managerSecretCacheOptions } from '@capi/certs';

export const NS = 'default';

export interface ProviderEnv {
  env: Envtest;
  app: TestingModule;
  client: Client;
  /** Requests of the manager's clients (not the test's own). */
  counts: CountingClientMetrics;
  stop(): Promise<void>;
}

/** envtest + ControllerRuntimeModule + SsaModule + InMemoryProviderModule. */
export async function startProviderEnv(options: InMemoryProviderOptions = {}): Promise<ProviderEnv> {
  registerInMemoryKinds();
  const env = await startEnvtest();
  const kubeconfig = () => kubeConfigFor(env);
  const counts = new CountingClientMetrics();
  const app = await Test.createTestingModule({
    imports: [
      ControllerRuntimeModule.forRoot({
        ...managerSecretCacheOptions(),
        kubeconfig,
        fieldManager: 'test',
        clientMetrics: counts,
        ...TEST_RATE_LIMITING,
      }),
      SsaModule.forRoot(),
      InMemoryProviderModule.forRoot(options),
    ],
  }).compile();
  await app.init();
  return {
    env,
    app,
    client: app.get<Client>(KUBE_CLIENT),
    counts,
    stop: async () => {
      await app.close();
      await env.stop();
    },
  };
}

const ownerRef = (obj: KubeObject, controller = true) => ({
  apiVersion: obj.apiVersion,
  kind: obj.kind,
  name: obj.metadata.name!,
  uid: obj.metadata.uid!,
  controller,
});

export async function createCluster(
  client: Client,
  name: string,
): Promise<{ cluster: Cluster; infraCluster: InMemoryCluster }> {
  const cluster = await client.create<Cluster>({
    apiVersion: CLUSTER_API_VERSION,
    kind: 'Cluster',
    metadata: { name, namespace: NS },
    spec: { infrastructureRef: { apiGroup: INFRASTRUCTURE_GROUP, kind: 'InMemoryCluster', name } },
  });
  const infraCluster = await client.create<InMemoryCluster>({
    apiVersion: INMEMORY_API_VERSION,
    kind: 'InMemoryCluster',
    metadata: { name, namespace: NS, labels: { [CLUSTER_NAME_LABEL]: name }, ownerReferences: [ownerRef(cluster)] },
    spec: {},
  });
  return { cluster, infraCluster };
}

export interface MachineOptions {
  version?: string;
  controlPlane?: boolean;
  /** Set spec.bootstrap.dataSecretName right away (as the Machine controller would once bootstrap is ready). */
  dataSecretName?: string;
  /**
   * The cloud-config in the data Secret, created with the Machine unless it exists (default: one file, `/etc/boot`);
   * false: no Secret (the VM's bootstrap fails until one appears).
   */
  bootstrapData?: string | false;
  infraSpec?: InMemoryMachine['spec'];
  bootstrapConfigName?: string;
}

/** A Machine and its InMemoryMachine (owned by the Machine, as the Machine controller arranges). */
export async function createMachine(
  client: Client,
  clusterName: string,
  name: string,
  opts: MachineOptions = {},
): Promise<{ machine: Machine; infra: InMemoryMachine }> {
  const labels = {
    [CLUSTER_NAME_LABEL]: clusterName,
    ...(opts.controlPlane ? { [MACHINE_CONTROL_PLANE_LABEL]: '' } : {}),
  };
  const machine = await client.create<Machine>({
    apiVersion: CLUSTER_API_VERSION,
    kind: 'Machine',
    metadata: { name, namespace: NS, labels },
    spec: {
      clusterName,
      version: opts.version ?? 'v1.31.0',
      bootstrap: {
        ...(opts.dataSecretName ? { dataSecretName: opts.dataSecretName } : {}),
        ...(opts.bootstrapConfigName
          ? {
              configRef: {
                apiGroup: 'bootstrap.cluster.x-k8s.io',
                kind: 'KubeadmConfig',
                name: opts.bootstrapConfigName,
              },
            }
          : {}),
      },
      infrastructureRef: { apiGroup: INFRASTRUCTURE_GROUP, kind: 'InMemoryMachine', name: `${name}-infra` },
    },
  });
  if (opts.dataSecretName && opts.bootstrapData !== false)
    await createBootstrapDataSecret(client, opts.dataSecretName, opts.bootstrapData ?? DEFAULT_BOOTSTRAP_DATA);
  const infra = await client.create<InMemoryMachine>({
    apiVersion: INMEMORY_API_VERSION,
    kind: 'InMemoryMachine',
    metadata: { name: `${name}-infra`, namespace: NS, labels, ownerReferences: [ownerRef(machine)] },
    spec: opts.infraSpec ?? {},
  });
  return { machine, infra };
}

export const DEFAULT_BOOTSTRAP_DATA = '#cloud-config\nwrite_files:\n- path: /etc/boot\n  content: booted\n';

/** A bootstrap data Secret (what a bootstrap provider writes for spec.bootstrap.dataSecretName); kept if it exists. */
export async function createBootstrapDataSecret(client: Client, name: string, cloudConfig: string): Promise<void> {
  const data = { value: Buffer.from(cloudConfig).toString('base64') };
  await client.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: NS }, data }).catch((e) => {
    if (!isAlreadyExists(e)) throw e;
  });
}

export const bootstrapConfigOwnedBy = (machine: Machine, name: string, spec: Record<string, unknown>): KubeObject => ({
  apiVersion: BOOTSTRAP_API_VERSION,
  kind: 'KubeadmConfig',
  metadata: { name, namespace: NS, ownerReferences: [ownerRef(machine)] },
  spec,
});

export const infraRef = (name: string) => ({
  apiVersion: INMEMORY_API_VERSION,
  kind: 'InMemoryMachine',
  namespace: NS,
  name,
});
