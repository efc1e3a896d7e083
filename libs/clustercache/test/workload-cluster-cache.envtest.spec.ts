// The workload cluster cache over the default client provider (kubeconfig Secrets): one Node informer per cluster,
// rebuilt when the Secret changes, stopped by close(); an unreachable cluster fails reads after syncTimeoutMs.
import type { KubeClient } from '@capi/controller-runtime';
import { clientFor, eventually, startEnvtest, type Envtest } from '@capi/envtest';
import { kubeconfigSecretClientProvider, WorkloadClusterCache } from '@capi/clustercache';

jest.setTimeout(60_000);

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
    const n1 = await cache.nodeByProviderID(cluster, 'test://n1');
    expect(n1?.metadata.name).toBe('n1');
    // Held without managedFields (the server sets them: the create above was an Update of the test's client).
    expect(n1?.metadata.managedFields).toBeUndefined();
    expect((await client.get({ apiVersion: 'v1', kind: 'Node', name: 'n1' })).metadata.managedFields).toBeDefined();
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
    await expect(cache.nodeByProviderID({ namespace: 'wcc', name: 'down' }, 'test://n1')).rejects.toThrow(
      /did not sync/,
    );
  });
});
