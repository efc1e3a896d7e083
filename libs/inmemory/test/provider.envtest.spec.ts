// The provider's controllers against the embedded API server (envtest) and real workload API servers.
import { BOOTSTRAP_API_VERSION, CLUSTER_NAME_LABEL, type KubeadmConfig } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import { CACHE, MANAGER, type InformerCache, type KubeClient, type Manager } from '@capi/controller-runtime';
import { testReconcileContext } from '@capi/controller-runtime/testing';
import { clientFor, eventually, settle } from '@capi/envtest';
import {
  INMEMORY_API_VERSION,
  type InMemoryCluster,
  type InMemoryMachine,
  WORKLOAD_CLUSTERS,
  type WorkloadClusters,
} from '@capi/inmemory';
import { WORKLOAD_CLUSTER_CLIENT_PROVIDER, type WorkloadClusterClientProvider } from '@capi/clustercache';
import {
  NS,
  bootstrapConfigOwnedBy,
  createCluster,
  createMachine,
  infraRef,
  startProviderEnv,
  type ProviderEnv,
} from './support/fixtures';
import {
  CLUSTER_SECRET_TYPE,
  INMEMORY_MACHINE_FINALIZER,
  kubeconfigSecretName,
  NODE_ROLE_CONTROL_PLANE_LABEL,
} from '../src/api/constants';
import { InMemoryMachineReconciler } from '../src/machine/inmemory-machine.reconciler';
import { KubeadmConfigReconciler } from '../src/bootstrap/kubeadm-config.reconciler';
import { leaderOf } from '../src/etcd/cluster-state';
import { EtcdClusterStore } from '../src/etcd/store';
import { ETCD_CLUSTER_ID_ANNOTATION, ETCD_MEMBER_ID_ANNOTATION } from '../src/host/control-plane';

jest.setTimeout(30_000);

let p: ProviderEnv;
beforeAll(async () => {
  p = await startProviderEnv({ provisioningDelayMs: 0 });
});
afterAll(async () => {
  await p?.stop();
});

const secretRef = (name: string) => ({ apiVersion: 'v1', kind: 'Secret', namespace: NS, name });

/** A KubeClient built only from the `<cluster>-kubeconfig` Secret, as any consumer would. */
async function workloadClientFromSecret(cluster: string): Promise<KubeClient> {
  const secret = await eventually(() => p.client.tryGet(secretRef(kubeconfigSecretName(cluster))), 'kubeconfig Secret');
  return clientFor(Buffer.from((secret.data as Record<string, string>).value, 'base64').toString('utf8'));
}

describe('InMemoryCluster', () => {
  it('starts the workload API server, writes a working <cluster>-kubeconfig Secret and reports the endpoint', async () => {
    const { cluster } = await createCluster(p.client, 'c1');
    const infra = await eventually(async () => {
      const ic = await p.client.get<InMemoryCluster>({
        apiVersion: INMEMORY_API_VERSION,
        kind: 'InMemoryCluster',
        namespace: NS,
        name: 'c1',
      });
      return ic.status?.initialization?.provisioned && ic.spec.controlPlaneEndpoint?.port ? ic : undefined;
    }, 'InMemoryCluster provisioned');
    expect(infra.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');

    const secret = await p.client.get(secretRef('c1-kubeconfig'));
    expect(secret.type).toBe(CLUSTER_SECRET_TYPE);
    expect(secret.metadata.labels?.[CLUSTER_NAME_LABEL]).toBe('c1');
    expect(secret.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'Cluster', name: 'c1', uid: cluster.metadata.uid }),
    ]);

    const workload = await workloadClientFromSecret('c1');
    try {
      const namespaces = await workload.list('v1', 'Namespace');
      expect(namespaces.items.map((n) => n.metadata.name)).toContain('kube-system');
      // The endpoint is the server the kubeconfig points at.
      const running = p.app.get<WorkloadClusters>(WORKLOAD_CLUSTERS).get({ namespace: NS, name: 'c1' })!;
      expect(infra.spec.controlPlaneEndpoint).toEqual({ host: '127.0.0.1', port: running.port });
      expect(running.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    } finally {
      workload.close();
    }
  });

  it('rewrites the kubeconfig Secret when it is deleted', async () => {
    await createCluster(p.client, 'c-secret');
    const first = await eventually(() => p.client.tryGet(secretRef('c-secret-kubeconfig')), 'kubeconfig Secret');
    await p.client.delete(secretRef('c-secret-kubeconfig'));
    // Any reconcile of the InMemoryCluster restores it; touch the object to trigger one.
    await p.client.patch(
      { apiVersion: INMEMORY_API_VERSION, kind: 'InMemoryCluster', namespace: NS, name: 'c-secret' },
      'merge',
      { metadata: { annotations: { poke: '1' } } },
    );
    const again = await eventually(() => p.client.tryGet(secretRef('c-secret-kubeconfig')), 'kubeconfig Secret again');
    expect(again.metadata.uid).not.toBe(first.metadata.uid);
    expect(again.data).toEqual(first.data);
  });

  it('deletion stops the workload API server and removes the finalizer', async () => {
    await createCluster(p.client, 'c-gone');
    const workloads = p.app.get<WorkloadClusters>(WORKLOAD_CLUSTERS);
    const ref = { apiVersion: INMEMORY_API_VERSION, kind: 'InMemoryCluster', namespace: NS, name: 'c-gone' };
    const running = await eventually(() => workloads.get({ namespace: NS, name: 'c-gone' }), 'workload server started');
    await eventually(async () => (await p.client.get(ref)).metadata.finalizers?.length, 'finalizer');
    await p.client.delete(ref);
    await eventually(async () => !(await p.client.tryGet(ref)), 'InMemoryCluster gone');
    expect(workloads.get({ namespace: NS, name: 'c-gone' })).toBeUndefined();
    await expect(running.client.list('v1', 'Namespace')).rejects.toThrow();
  });
});

describe('InMemoryMachine', () => {
  beforeAll(async () => {
    await createCluster(p.client, 'c2');
  });

  it('waits for bootstrap data before booting', async () => {
    await createMachine(p.client, 'c2', 'waiting');
    const infra = await eventually(async () => {
      const m = await p.client.get<InMemoryMachine>(infraRef('waiting-infra'));
      return m.status?.conditions?.find((c) => c.type === 'VMProvisioned')?.reason === 'WaitingForBootstrapData'
        ? m
        : undefined;
    }, 'WaitingForBootstrapData');
    expect(infra.status?.initialization?.provisioned).toBe(false);
    expect(infra.spec.providerID).toBeUndefined();
    expect(infra.metadata.finalizers).toContain(INMEMORY_MACHINE_FINALIZER);
  });

  it('provisions: Node with providerID, version and control-plane label in the workload cluster', async () => {
    const { machine } = await createMachine(p.client, 'c2', 'cp-0', {
      controlPlane: true,
      dataSecretName: 'cp-0-data',
      version: 'v1.31.2',
      infraSpec: { resources: { cpu: 4, memoryMiB: 8192 } },
    });
    const infra = await eventually(async () => {
      const m = await p.client.get<InMemoryMachine>(infraRef('cp-0-infra'));
      return m.status?.initialization?.provisioned ? m : undefined;
    }, 'InMemoryMachine provisioned');
    expect(infra.spec.providerID).toBe('in-memory://c2/cp-0');
    expect(infra.status?.addresses).toEqual([
      expect.objectContaining({ type: 'InternalIP' }),
      { type: 'Hostname', address: 'cp-0' },
    ]);
    expect(infra.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');

    const clients = p.app.get<WorkloadClusterClientProvider>(WORKLOAD_CLUSTER_CLIENT_PROVIDER);
    const workload = await eventually(() => clients({ namespace: NS, name: 'c2' }), 'workload client');
    const node = await workload.get<KubeObject>({ apiVersion: 'v1', kind: 'Node', name: machine.metadata.name! });
    expect(node.spec).toMatchObject({ providerID: 'in-memory://c2/cp-0' });
    expect(node.metadata.labels).toMatchObject({ [NODE_ROLE_CONTROL_PLANE_LABEL]: '' });
    const status = node.status as {
      nodeInfo: { kubeletVersion: string };
      conditions: { type: string; status: string }[];
      capacity: Record<string, string>;
    };
    expect(status.nodeInfo.kubeletVersion).toBe('v1.31.2');
    expect(status.conditions.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect(status.capacity).toMatchObject({ cpu: '4', memory: '8192Mi' });
  });

  it('reconciling a provisioned InMemoryMachine again writes nothing', async () => {
    await createMachine(p.client, 'c2', 'steady', { dataSecretName: 'steady-data' });
    const infra = await eventually(async () => {
      const m = await p.client.get<InMemoryMachine>(infraRef('steady-infra'));
      const settled = m.status?.conditions?.every((c) => c.observedGeneration === m.metadata.generation);
      return m.status?.initialization?.provisioned && m.spec.providerID && settled ? m : undefined;
    }, 'provisioned, status observing the latest generation');
    const cache = p.app.get<InformerCache>(CACHE);
    expect(await cache.waitForResourceVersion(infraRef('steady-infra'), infra.metadata.resourceVersion!, 5000)).toBe(
      true,
    );
    // Any reconcile of a settled object (this direct one, or ones triggered by its last write) is a no-op.
    const before = p.counts.writes('InMemoryMachine');
    const steady = { namespace: NS, name: 'steady-infra' };
    await expect(
      p.app.get(InMemoryMachineReconciler).reconcile(steady, testReconcileContext(steady)),
    ).resolves.toBeUndefined();
    expect(p.counts.writes('InMemoryMachine') - before).toBe(0);
  });

  it('worker Nodes carry no control-plane label', async () => {
    const { machine } = await createMachine(p.client, 'c2', 'worker-0', { dataSecretName: 'worker-0-data' });
    const clients = p.app.get<WorkloadClusterClientProvider>(WORKLOAD_CLUSTER_CLIENT_PROVIDER);
    const node = await eventually(
      async () =>
        (await clients({ namespace: NS, name: 'c2' })).tryGet({
          apiVersion: 'v1',
          kind: 'Node',
          name: machine.metadata.name!,
        }),
      'worker Node',
    );
    expect(node.metadata.labels?.[NODE_ROLE_CONTROL_PLANE_LABEL]).toBeUndefined();
  });

  it('deletion removes the Node and the finalizer', async () => {
    const { machine } = await createMachine(p.client, 'c2', 'doomed', { dataSecretName: 'doomed-data' });
    const clients = p.app.get<WorkloadClusterClientProvider>(WORKLOAD_CLUSTER_CLIENT_PROVIDER);
    const nodeRef = { apiVersion: 'v1', kind: 'Node', name: machine.metadata.name! };
    await eventually(async () => (await clients({ namespace: NS, name: 'c2' })).tryGet(nodeRef), 'Node registered');
    await p.client.delete(infraRef('doomed-infra'));
    await eventually(async () => !(await p.client.tryGet(infraRef('doomed-infra'))), 'InMemoryMachine gone');
    const workload = await clients({ namespace: NS, name: 'c2' });
    expect(await workload.tryGet(nodeRef)).toBeUndefined();
  });

  it('a control-plane host runs its mirror Pods and an etcd member; deletion removes the Pods, the member stays', async () => {
    const { machine } = await createMachine(p.client, 'c2', 'cp-pub', {
      controlPlane: true,
      dataSecretName: 'cp-pub-data',
      version: 'v1.31.2',
    });
    await createMachine(p.client, 'c2', 'worker-pub', { dataSecretName: 'worker-pub-data' });
    const clients = p.app.get<WorkloadClusterClientProvider>(WORKLOAD_CLUSTER_CLIENT_PROVIDER);
    const workload = await eventually(() => clients({ namespace: NS, name: 'c2' }), 'workload client');
    const pods = async (suffix: string) =>
      (
        await workload.list<KubeObject>('v1', 'Pod', { namespace: 'kube-system', labelSelector: 'tier=control-plane' })
      ).items
        .map((pod) => pod.metadata.name!)
        .filter((n) => n.endsWith(suffix))
        .sort();
    const names = await eventually(async () => {
      const n = await pods('-cp-pub');
      return n.length === 4 ? n : undefined;
    }, 'mirror Pods');
    expect(names).toEqual([
      'etcd-cp-pub',
      'kube-apiserver-cp-pub',
      'kube-controller-manager-cp-pub',
      'kube-scheduler-cp-pub',
    ]);
    const node = await workload.get<KubeObject>({ apiVersion: 'v1', kind: 'Node', name: 'cp-pub' });
    const apiserver = await workload.get<KubeObject & { status: { phase: string; conditions: unknown[] } }>({
      apiVersion: 'v1',
      kind: 'Pod',
      namespace: 'kube-system',
      name: 'kube-apiserver-cp-pub',
    });
    expect(apiserver).toMatchObject({
      metadata: {
        labels: { component: 'kube-apiserver', tier: 'control-plane' },
        ownerReferences: [{ kind: 'Node', name: 'cp-pub', uid: node.metadata.uid, controller: true }],
      },
      spec: { nodeName: machine.metadata.name },
      status: { phase: 'Running' },
    });
    expect(apiserver.status.conditions).toContainEqual(expect.objectContaining({ type: 'Ready', status: 'True' }));
    // The cluster's first control-plane host (an earlier test's) created the etcd cluster and leads it; this one
    // joined. Its IDs are on its etcd Pod, as upstream's.
    const state = (await new EtcdClusterStore(workload).read())!;
    const member = state.members.find((m) => m.name === 'cp-pub')!;
    expect(state.members.at(-1)).toBe(member);
    expect(leaderOf(state)).toBe(state.members[0].id);
    const etcdPod = await workload.get<KubeObject>({
      apiVersion: 'v1',
      kind: 'Pod',
      namespace: 'kube-system',
      name: 'etcd-cp-pub',
    });
    expect(etcdPod.metadata.annotations).toMatchObject({
      [ETCD_CLUSTER_ID_ANNOTATION]: state.clusterID,
      [ETCD_MEMBER_ID_ANNOTATION]: member.id,
    });
    await eventually(
      async () => (await workload.tryGet({ apiVersion: 'v1', kind: 'Node', name: 'worker-pub' })) !== undefined,
      'worker Node',
    );
    expect(await pods('-worker-pub')).toEqual([]);

    await p.client.delete(infraRef('cp-pub-infra'));
    await eventually(async () => !(await p.client.tryGet(infraRef('cp-pub-infra'))), 'InMemoryMachine gone');
    expect(await pods('-cp-pub')).toEqual([]);
    // A member stays until someone removes it (KCP does): down, its host gone.
    expect((await new EtcdClusterStore(workload).read())?.members).toContainEqual(
      expect.objectContaining({ name: 'cp-pub', id: member.id, down: true }),
    );
  });

  it("re-registers a provisioned VM's Node that disappeared while nothing is being deleted (kubelet re-registration)", async () => {
    const { machine } = await createMachine(p.client, 'c2', 'reregister', { dataSecretName: 'x' });
    const clients = p.app.get<WorkloadClusterClientProvider>(WORKLOAD_CLUSTER_CLIENT_PROVIDER);
    const nodeRef = { apiVersion: 'v1', kind: 'Node', name: machine.metadata.name! };
    const workload = await eventually(async () => {
      const c = await clients({ namespace: NS, name: 'c2' });
      return (await c.tryGet(nodeRef)) ? c : undefined;
    }, 'Node registered');
    await workload.delete(nodeRef);
    await p.client.patch(infraRef('reregister-infra'), 'merge', { metadata: { annotations: { poke: '1' } } });
    await eventually(() => workload.tryGet(nodeRef), 'Node registered again');
  });
});

describe('KubeadmConfig bootstrap', () => {
  it('creates the data Secret with cloud-init and sets dataSecretCreated / dataSecretName', async () => {
    await createCluster(p.client, 'c3');
    const { machine } = await createMachine(p.client, 'c3', 'boot-0', { bootstrapConfigName: 'boot-0' });
    await p.client.create<KubeObject>({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'extra', namespace: NS },
      data: { motd: Buffer.from('hello').toString('base64') },
    });
    await p.client.create(
      bootstrapConfigOwnedBy(machine, 'boot-0', {
        initConfiguration: { nodeRegistration: { name: 'boot-0' } },
        clusterConfiguration: { etcd: { local: { imageTag: '3.5.15' } } },
        files: [
          { path: '/etc/motd', contentFrom: { secret: { name: 'extra', key: 'motd' } } },
          { path: '/etc/a', content: 'a' },
        ],
        preKubeadmCommands: ['echo pre'],
      }),
    );
    const config = await eventually(async () => {
      const c = await p.client.get<KubeadmConfig>({
        apiVersion: BOOTSTRAP_API_VERSION,
        kind: 'KubeadmConfig',
        namespace: NS,
        name: 'boot-0',
      });
      return c.status?.initialization?.dataSecretCreated ? c : undefined;
    }, 'dataSecretCreated');
    expect(config.status?.dataSecretName).toBe('boot-0');
    expect(config.status?.conditions?.find((c) => c.type === 'DataSecretAvailable')?.status).toBe('True');
    const secret = await p.client.get(secretRef('boot-0'));
    expect(secret.type).toBe(CLUSTER_SECRET_TYPE);
    expect(secret.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'KubeadmConfig', name: 'boot-0', controller: true }),
    ]);
    const cloudInit = Buffer.from((secret.data as Record<string, string>).value, 'base64').toString('utf8');
    expect(cloudInit).toContain('#cloud-config');
    expect(cloudInit).toContain('kubeadm init --config /run/kubeadm/kubeadm.yaml');
    expect(cloudInit).toContain('content: hello');
    expect(cloudInit).toContain('echo pre');
  });

  it('writes the data Secret and the status once, however often the Machine changes meanwhile', async () => {
    const { machine } = await createMachine(p.client, 'c3', 'boot-once', { bootstrapConfigName: 'boot-once' });
    await p.env.resetRequests();
    await p.client.create(bootstrapConfigOwnedBy(machine, 'boot-once', { joinConfiguration: {} }));
    // Each Machine change enqueues the config (the Machine watch), also right after its status write.
    const machineRef = { apiVersion: machine.apiVersion, kind: 'Machine', namespace: NS, name: machine.metadata.name! };
    for (let i = 0; i < 10; i++)
      await p.client.patch(machineRef, 'merge', { metadata: { annotations: { poke: String(i) } } });
    await eventually(
      async () =>
        (
          await p.client.get<KubeadmConfig>({
            apiVersion: BOOTSTRAP_API_VERSION,
            kind: 'KubeadmConfig',
            namespace: NS,
            name: 'boot-once',
          })
        ).status?.initialization?.dataSecretCreated,
      'dataSecretCreated',
    );
    for (let i = 10; i < 20; i++)
      await p.client.patch(machineRef, 'merge', { metadata: { annotations: { poke: String(i) } } });
    await settle(p.app.get<Manager>(MANAGER), ['kubeadmconfig']);
    const writes = (await p.env.countRequests()).writesByManager;
    expect([
      writes['apply /secrets capi-kubeadmconfig'],
      writes['apply bootstrap.cluster.x-k8s.io/kubeadmconfigs/status capi-kubeadmconfig'],
    ]).toEqual([1, 1]);
  });

  it('reports a missing contentFrom Secret on the DataSecretAvailable condition', async () => {
    const { machine } = await createMachine(p.client, 'c3', 'boot-1', { bootstrapConfigName: 'boot-1' });
    await p.client.create(
      bootstrapConfigOwnedBy(machine, 'boot-1', {
        joinConfiguration: {},
        files: [{ path: '/etc/x', contentFrom: { secret: { name: 'nope', key: 'k' } } }],
      }),
    );
    const cond = await eventually(async () => {
      const c = await p.client.get<KubeadmConfig>({
        apiVersion: BOOTSTRAP_API_VERSION,
        kind: 'KubeadmConfig',
        namespace: NS,
        name: 'boot-1',
      });
      return c.status?.conditions?.find((x) => x.type === 'DataSecretAvailable');
    }, 'DataSecretAvailable condition');
    expect(cond).toMatchObject({ status: 'False', reason: 'SecretContentNotFound' });
    expect(await p.client.tryGet(secretRef('boot-1'))).toBeUndefined();
  });

  it('waits for an owning Machine', async () => {
    const ref = { apiVersion: BOOTSTRAP_API_VERSION, kind: 'KubeadmConfig', namespace: NS, name: 'orphan' };
    const created = await p.client.create<KubeObject>({
      ...ref,
      metadata: { name: 'orphan', namespace: NS },
      spec: {},
    });
    expect(
      await p.app.get<InformerCache>(CACHE).waitForResourceVersion(ref, created.metadata.resourceVersion!, 5000),
    ).toBe(true);
    // Reconcile directly (deterministic): without a Machine owner nothing is written.
    const orphan = { namespace: NS, name: 'orphan' };
    await expect(
      p.app.get(KubeadmConfigReconciler).reconcile(orphan, testReconcileContext(orphan)),
    ).resolves.toBeUndefined();
    expect(await p.client.tryGet(secretRef('orphan'))).toBeUndefined();
    expect((await p.client.get(ref)).status).toBeUndefined();
  });
});

/**
 * Reconciles of one object: other tests' objects in this file keep reconciling meanwhile (a control-plane
 * InMemoryMachine without its etcd CA is retried every 2 s).
 */
const watchedCalls = (spy: jest.SpyInstance, name: string) =>
  spy.mock.calls.filter(([req]) => (req as { name: string }).name === name).length;

describe('Machine watch', () => {
  it('reconciles the InMemoryMachine and KubeadmConfig for Machine spec changes, not for its status, annotation or label writes', async () => {
    await createCluster(p.client, 'c-watch');
    const { machine } = await createMachine(p.client, 'c-watch', 'watched', {
      dataSecretName: 'watched-data',
      bootstrapConfigName: 'watched',
    });
    await p.client.create(bootstrapConfigOwnedBy(machine, 'watched', { joinConfiguration: {} }));
    await eventually(
      async () => (await p.client.get<InMemoryMachine>(infraRef('watched-infra'))).status?.initialization?.provisioned,
      'provisioned',
    );
    await eventually(
      async () =>
        (
          await p.client.get<KubeadmConfig>({
            apiVersion: BOOTSTRAP_API_VERSION,
            kind: 'KubeadmConfig',
            namespace: NS,
            name: 'watched',
          })
        ).status?.initialization?.dataSecretCreated,
      'dataSecretCreated',
    );
    const manager = p.app.get<Manager>(MANAGER);
    await settle(manager, ['inmemorymachine', 'kubeadmconfig']);
    const infraReconcile = jest.spyOn(p.app.get(InMemoryMachineReconciler), 'reconcile');
    const configReconcile = jest.spyOn(p.app.get(KubeadmConfigReconciler), 'reconcile');
    try {
      const machineRef = {
        apiVersion: machine.apiVersion,
        kind: 'Machine',
        namespace: NS,
        name: machine.metadata.name!,
      };
      // What a rollout does to a Machine many times over: status conditions, annotations (hooks), labels (a move).
      for (let i = 0; i < 3; i++) {
        await p.client.patch(
          machineRef,
          'merge',
          { status: { observedGeneration: 100 + i } },
          { subresource: 'status' },
        );
        await p.client.patch(machineRef, 'merge', { metadata: { annotations: { poke: String(i) } } });
        await p.client.patch(machineRef, 'merge', { metadata: { labels: { 'cluster.x-k8s.io/set-name': `ms-${i}` } } });
      }
      await settle(manager, ['inmemorymachine', 'kubeadmconfig']);
      expect([watchedCalls(infraReconcile, 'watched-infra'), watchedCalls(configReconcile, 'watched')]).toEqual([0, 0]);
      // A spec change (here the version) is one they read.
      await p.client.patch(machineRef, 'merge', { spec: { version: 'v1.32.0' } });
      await settle(manager, ['inmemorymachine', 'kubeadmconfig']);
      expect(watchedCalls(infraReconcile, 'watched-infra')).toBeGreaterThan(0);
      expect(watchedCalls(configReconcile, 'watched')).toBeGreaterThan(0);
    } finally {
      infraReconcile.mockRestore();
      configReconcile.mockRestore();
    }
  });
});
