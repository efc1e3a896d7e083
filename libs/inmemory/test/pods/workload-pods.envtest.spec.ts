// The simulated Pods of a workload cluster (InMemoryProviderOptions.workloadPods): kube-proxy on every Node, CoreDNS
// and the sample Deployment placed by the scheduler, Running and Ready; a deleted Pod is finished by its kubelet and
// replaced on another schedulable Node; a Node that goes takes its Pods; volumes attach and detach; eviction through
// the workload API server respects the sample's PodDisruptionBudget.
import type { KubeObject } from '@capi/apimachinery';
import type { Client } from '@capi/controller-runtime';
import { eventually } from '@capi/envtest';
import { WORKLOAD_CLUSTER_CLIENT_PROVIDER, type WorkloadClusterClientProvider } from '@capi/clustercache';
import { WORKLOAD_CLUSTERS, type WorkloadClusters } from '@capi/inmemory';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { createCluster, createMachine, infraRef, NS, startProviderEnv, type ProviderEnv } from '../support/fixtures';
import { sampleWorkloadObjects } from '../../src/pods/sample-workload';
import { isReadyNode } from '../../src/pods/scheduling';

jest.setTimeout(60_000);

const CLUSTER = 'pods';
const WORKERS = ['w-1', 'w-2', 'w-3'];
let p: ProviderEnv;
let workload: Client;

beforeAll(async () => {
  p = await startProviderEnv({
    provisioningDelayMs: 0,
    // The test creates the sample itself, once every worker is Ready (see the first test).
    workloadPods: { sampleWorkload: false, podShutdownMs: 300, volumeDetachDelayMs: 300 },
  });
  await createCluster(p.client, CLUSTER);
  await createMachine(p.client, CLUSTER, 'cp-1', { controlPlane: true, dataSecretName: 'cp-1-data' });
  for (const w of WORKERS) await createMachine(p.client, CLUSTER, w, { dataSecretName: `${w}-data` });
  const clients = p.app.get<WorkloadClusterClientProvider>(WORKLOAD_CLUSTER_CLIENT_PROVIDER);
  workload = await eventually(() => clients({ namespace: NS, name: CLUSTER }), 'workload client');
});
afterAll(async () => {
  await p?.stop();
});

const listPods = async (namespace: string, labelSelector: string) =>
  (await workload.list<KubeObject>('v1', 'Pod', { namespace, labelSelector })).items;
const nodeOf = (pod: KubeObject) => (pod.spec as { nodeName: string }).nodeName;
const ready = (pod: KubeObject) =>
  (pod.status as { phase?: string; conditions?: { type: string; status: string }[] } | undefined)?.phase ===
    'Running' &&
  !!(pod.status as { conditions?: { type: string; status: string }[] }).conditions?.some(
    (c) => c.type === 'Ready' && c.status === 'True',
  ) &&
  !pod.metadata.deletionTimestamp;
const owner = (obj: KubeObject) => obj.metadata.ownerReferences?.find((o) => o.controller);

/** The sample's Pods once `n` of them run Ready (and none terminates). */
const sampleReady = (n: number, message: string) =>
  eventually(async () => {
    const pods = await listPods('default', 'app=sample');
    return pods.length === n && pods.every(ready) ? pods : undefined;
  }, message);

const volumeAttachments = async () => (await workload.list<KubeObject>('storage.k8s.io/v1', 'VolumeAttachment')).items;
const nodeVolumes = async (name: string) => {
  const status = (await workload.get<KubeObject>({ apiVersion: 'v1', kind: 'Node', name })).status as {
    volumesAttached?: { name: string }[];
    volumesInUse?: string[];
  };
  return { attached: (status.volumesAttached ?? []).map((v) => v.name), inUse: status.volumesInUse ?? [] };
};

const podRef = (name: string) => ({ apiVersion: 'v1', kind: 'Pod', namespace: 'default', name });
const cordon = (name: string, unschedulable: boolean) =>
  workload.patch({ apiVersion: 'v1', kind: 'Node', name }, 'merge', { spec: { unschedulable: unschedulable || null } });
const pdbStatus = async () =>
  (
    await workload.get<KubeObject>({
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      namespace: 'default',
      name: 'sample',
    })
  ).status as { disruptionsAllowed?: number; currentHealthy?: number } | undefined;

describe('simulated Pods', () => {
  it('runs kube-proxy on every Node, CoreDNS and the sample spread over the workers, all Ready', async () => {
    const nodes = ['cp-1', ...WORKERS];
    const proxies = await eventually(async () => {
      const pods = await listPods('kube-system', 'k8s-app=kube-proxy');
      return pods.length === nodes.length && pods.every(ready) ? pods : undefined;
    }, 'a Ready kube-proxy Pod per Node');
    expect(proxies.map(nodeOf).sort()).toEqual(nodes);
    expect(owner(proxies[0])).toMatchObject({ kind: 'DaemonSet', name: 'kube-proxy' });

    const dns = await eventually(async () => {
      const pods = await listPods('kube-system', 'k8s-app=kube-dns');
      return pods.length === 2 && pods.every(ready) ? pods : undefined;
    }, 'two Ready CoreDNS Pods');
    const rs = await workload.get<KubeObject>({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      namespace: 'kube-system',
      name: owner(dns[0])!.name,
    });
    expect(owner(dns[0])!.kind).toBe('ReplicaSet');
    expect(owner(rs)).toMatchObject({ kind: 'Deployment', name: 'coredns' });
    // CoreDNS tolerates control-plane Nodes, yet the scheduler puts it on workers while there are any.
    expect(dns.map(nodeOf).every((n) => WORKERS.includes(n))).toBe(true);

    // The scheduler places Pods on the Ready Nodes there are, as kube's does: a sample created while one worker is up
    // (the simulator's default, at start) may all land there. Here it goes in once every worker is Ready.
    await eventually(async () => {
      const nodes = (await workload.list<KubeObject>('v1', 'Node')).items;
      return WORKERS.every((w) => nodes.some((n) => n.metadata.name === w && isReadyNode(n)));
    }, 'every worker Node Ready');
    for (const obj of sampleWorkloadObjects()) await workload.create(obj);
    const sample = await sampleReady(3, 'three Ready sample Pods');
    expect(sample.map(nodeOf).sort()).toEqual(WORKERS);
    const mirror = await listPods('kube-system', 'tier=control-plane');
    expect(mirror.map(nodeOf)).toEqual(['cp-1', 'cp-1', 'cp-1', 'cp-1']);
  });

  it("attaches the sample's volume to each Node running it and lists it in the Node's status", async () => {
    const pvc = await eventually(async () => {
      const c = await workload.get<KubeObject>({
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        namespace: 'default',
        name: 'sample-data',
      });
      return (c.status as { phase?: string } | undefined)?.phase === 'Bound' ? c : undefined;
    }, 'PVC Bound');
    expect((pvc.spec as { volumeName: string }).volumeName).toBe('sample-data');
    const vas = await eventually(async () => {
      const all = await volumeAttachments();
      return all.length === 3 && all.every((va) => (va.status as { attached?: boolean })?.attached) ? all : undefined;
    }, 'three attached VolumeAttachments');
    expect(vas.map((va) => (va.spec as { nodeName: string }).nodeName).sort()).toEqual(WORKERS);
    expect(vas[0].spec).toMatchObject({ source: { persistentVolumeName: 'sample-data' } });
    const name = 'kubernetes.io/csi/csi.inmemory.infrastructure.cluster.x-k8s.io^sample-data';
    for (const w of WORKERS)
      await eventually(async () => {
        const v = await nodeVolumes(w);
        return v.attached.includes(name) && v.inUse.includes(name);
      }, `${w} lists the volume attached and in use`);
    expect(await nodeVolumes('cp-1')).toEqual({ attached: [], inUse: [] });
  });

  it('a deleted Pod of a cordoned Node is finished by its kubelet and replaced on another Node; its volume detaches', async () => {
    await cordon('w-1', true);
    const [victim] = (await listPods('default', 'app=sample')).filter((pod) => nodeOf(pod) === 'w-1');
    await workload.delete(podRef(victim.metadata.name!));
    // A bound Pod terminates gracefully: its kubelet shuts it down (300 ms here), then deletes it for good.
    const terminating = await workload.get<KubeObject>(podRef(victim.metadata.name!));
    expect(terminating.metadata.deletionTimestamp).toBeDefined();
    await eventually(async () => !(await workload.tryGet(podRef(victim.metadata.name!))), 'the deleted Pod gone');
    const pods = await sampleReady(3, 'three Ready sample Pods again');
    expect(pods.filter((pod) => nodeOf(pod) === 'w-1')).toEqual([]);
    await eventually(async () => {
      const onW1 = (await volumeAttachments()).filter((va) => (va.spec as { nodeName: string }).nodeName === 'w-1');
      const v = await nodeVolumes('w-1');
      return onW1.length === 0 && v.attached.length === 0 && v.inUse.length === 0;
    }, 'the volume detached from w-1');
    // kube-proxy stays on the cordoned Node (DaemonSet Pods tolerate unschedulable Nodes).
    expect((await listPods('kube-system', 'k8s-app=kube-proxy')).map(nodeOf)).toContain('w-1');
    await cordon('w-1', false);
  });

  it('a Node that goes takes its Pods with it; the sample is back to three on the other Nodes', async () => {
    await p.client.delete(infraRef('w-3-infra'));
    await eventually(
      async () => !(await workload.tryGet({ apiVersion: 'v1', kind: 'Node', name: 'w-3' })),
      'the Node w-3 gone',
    );
    await eventually(async () => {
      const all = await workload.list<KubeObject>('v1', 'Pod');
      return all.items.every((pod) => nodeOf(pod) !== 'w-3');
    }, 'no Pod bound to w-3');
    const pods = await sampleReady(3, 'three Ready sample Pods without w-3');
    expect(new Set(pods.map(nodeOf))).toEqual(new Set(['w-1', 'w-2']));
    await eventually(
      async () => (await volumeAttachments()).every((va) => (va.spec as { nodeName: string }).nodeName !== 'w-3'),
      'no VolumeAttachment for w-3',
    );
  });

  it("eviction respects the sample's PodDisruptionBudget: the next Pod only once the evicted one is replaced", async () => {
    const running = p.app.get<WorkloadClusters>(WORKLOAD_CLUSTERS).get({ namespace: NS, name: CLUSTER })!;
    const kc = new KubeConfig();
    kc.loadFromString(running.kubeconfig);
    const core = kc.makeApiClient(CoreV1Api);
    const evict = (name: string) =>
      core.createNamespacedPodEviction({
        name,
        namespace: 'default',
        body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: 'default' } },
      });
    const [first, second] = await sampleReady(3, 'three Ready sample Pods');
    await eventually(async () => (await pdbStatus())?.disruptionsAllowed === 1, 'the PDB allows one disruption');
    // No Node takes a replacement while all are cordoned.
    const nodes = (await workload.list<KubeObject>('v1', 'Node')).items.map((n) => n.metadata.name!);
    for (const n of nodes) await cordon(n, true);
    await evict(first.metadata.name!);
    await eventually(async () => !(await workload.tryGet(podRef(first.metadata.name!))), 'the evicted Pod gone');
    await expect(evict(second.metadata.name!)).rejects.toMatchObject({ code: 429 });
    expect(await workload.tryGet(podRef(second.metadata.name!))).toBeDefined();
    for (const n of nodes) await cordon(n, false);
    await sampleReady(3, 'the evicted Pod replaced');
    await eventually(async () => (await pdbStatus())?.disruptionsAllowed === 1, 'the PDB allows one disruption again');
    await evict(second.metadata.name!);
    await eventually(async () => !(await workload.tryGet(podRef(second.metadata.name!))), 'the second Pod evicted');
  });
});
