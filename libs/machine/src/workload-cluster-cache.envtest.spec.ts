// The Machine controller reads workload Nodes through the workload cluster cache: one Node list per cluster (the
// informer's), not one per new Machine, and a Node appearing later reaches its Machine by a watch event, not a poll.
import type { KubeClient, KubeObject } from '@capi/controller-runtime';
import { clientFor, eventually, startEnvtest, type Envtest } from '@capi/envtest';
import { lookupNode } from './machine-node';
import { kubeconfigSecretClientProvider } from './workload-cluster';
import { WorkloadClusterCache } from './workload-cluster-cache';
import {
  createNamespace,
  createNode,
  createReadyCluster,
  createRunningMachine,
  MACHINE_API,
  ref,
} from './testing/fixtures';
import { startHarness, type Harness } from './testing/harness';

jest.setTimeout(60_000);

const nodeRefOf = (m: KubeObject) => (m.status as { nodeRef?: { name: string } } | undefined)?.nodeRef;
/** Node list requests at the API server (the harness's workload cluster is the envtest server). */
const nodeLists = async (h: Harness) =>
  Object.entries((await h.env.countRequests()).byVerbResource)
    .filter(([k]) => /^list \S*\/nodes$/.test(k))
    .reduce((s, [, n]) => s + n, 0);

describe('Machine controller: workload Node cache (envtest)', () => {
  let h: Harness;
  const ns = 'nodecache';
  beforeAll(async () => {
    // An hour between Node polls: nothing below may rely on one.
    h = await startHarness({ inPlaceUpdates: false, nodePollIntervalMs: 3_600_000 });
    await createNamespace(h.client, ns);
    await createReadyCluster(h.client, ns);
  });
  afterAll(async () => h?.close());

  it('finds the Nodes of N new Machines with a constant number of Node lists, not one per Machine', async () => {
    await h.env.resetRequests();
    const n = 8;
    for (let i = 0; i < n; i++) await createRunningMachine(h.client, ns, `m${i}`);
    for (let i = 0; i < n; i++) {
      expect(nodeRefOf(await h.client.get<KubeObject>(ref(MACHINE_API, 'Machine', ns, `m${i}`)))).toEqual({
        name: `node-m${i}`,
      });
    }
    // The cluster's Node informer lists once (a relist after a dropped watch would add one).
    expect(await nodeLists(h)).toBeLessThanOrEqual(2);
  });

  it('a Node created after its Machine was provisioned gives the Machine its nodeRef by a Node event (no poll, no poke)', async () => {
    await createRunningMachine(h.client, ns, 'late', { node: false });
    const before = await h.client.get<KubeObject>(ref(MACHINE_API, 'Machine', ns, 'late'));
    expect(nodeRefOf(before)).toBeUndefined();
    await createNode(h.client, 'node-late', 'test://late');
    const m = await eventually(async () => {
      const x = await h.client.get<KubeObject>(ref(MACHINE_API, 'Machine', ns, 'late'));
      return nodeRefOf(x) && x;
    }, 'nodeRef from the Node event');
    expect(nodeRefOf(m)).toEqual({ name: 'node-late' });
  });
});

describe('WorkloadClusterCache over the kubeconfig Secret provider (envtest)', () => {
  let env: Envtest;
  let client: KubeClient;
  let provider: ReturnType<typeof kubeconfigSecretClientProvider>;
  let cache: WorkloadClusterCache;
  const cluster = { namespace: 'wcc', name: 'c1' };
  const secretRef = { apiVersion: 'v1', kind: 'Secret', namespace: 'wcc', name: 'c1-kubeconfig' };
  const lists = async () =>
    Object.entries((await env.countRequests()).byVerbResource)
      .filter(([k]) => /^list \S*\/nodes$/.test(k))
      .reduce((s, [, n]) => s + n, 0);
  beforeAll(async () => {
    env = await startEnvtest();
    client = clientFor(env);
    provider = kubeconfigSecretClientProvider(client);
    cache = new WorkloadClusterCache(provider, { syncTimeoutMs: 1000 });
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'wcc' } });
    await client.create({
      ...secretRef,
      metadata: { name: secretRef.name, namespace: 'wcc' },
      data: { value: Buffer.from(env.kubeconfig).toString('base64') },
    });
    const unreachable = env.kubeconfig.replace(/server: .*/, 'server: https://127.0.0.1:1');
    await client.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'down-kubeconfig', namespace: 'wcc' },
      data: { value: Buffer.from(unreachable).toString('base64') },
    });
    await client.create({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'n1' },
      spec: { providerID: 'test://n1' },
    });
  });
  afterAll(async () => {
    await cache?.closeAll();
    provider?.closeAll();
    client?.close();
    await env?.stop();
  });

  it('lists once per cluster, and again only after the kubeconfig Secret changed (new client → new informer)', async () => {
    await env.resetRequests();
    const seen: string[] = [];
    const unsubscribe = cache.watchNodes((c, node, type) => seen.push(`${c.name}:${node.metadata.name}:${type}`));
    expect((await cache.nodeByProviderID(cluster, 'test://n1'))?.metadata.name).toBe('n1');
    expect(await cache.nodeByProviderID(cluster, 'test://none')).toBeUndefined();
    expect(await lists()).toBe(1);
    expect(seen).toEqual(['c1:n1:add']);
    await client.patch(secretRef, 'merge', { metadata: { annotations: { rotated: '1' } } });
    await eventually(async () => {
      await cache.nodeByProviderID(cluster, 'test://n1');
      return (await lists()) === 2;
    }, 'rebuilt after the Secret changed');
    expect(seen).toEqual(['c1:n1:add', 'c1:n1:add']);
    unsubscribe();
  });

  it('close() stops the cluster informer; an unreachable cluster fails the read after syncTimeoutMs', async () => {
    await cache.nodeByProviderID(cluster, 'test://n1');
    expect(cache.isWatching(cluster)).toBe(true);
    cache.close(cluster);
    expect(cache.isWatching(cluster)).toBe(false);
    const found = await lookupNode(cache, { namespace: 'wcc', name: 'down' }, 'test://n1');
    expect(found.error).toMatch(/did not sync/);
  });
});
