// The default WorkloadClusterClientProvider: reads `<cluster>-kubeconfig` (key `value`) and connects with it.
import type { KubeClient, RequestRateLimiter } from '@capi/controller-runtime';
import { clientFor, startEnvtest, type Envtest } from '@capi/envtest';
import { kubeconfigSecretClientProvider, WorkloadClusterConnectionError } from '@capi/clustercache';

jest.setTimeout(30_000);

describe('kubeconfigSecretClientProvider (envtest)', () => {
  let env: Envtest;
  let client: KubeClient;
  let provider: ReturnType<typeof kubeconfigSecretClientProvider>;
  beforeAll(async () => {
    env = await startEnvtest();
    client = clientFor(env);
    provider = kubeconfigSecretClientProvider(client);
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'wc' } });
    const secret = (name: string, data: Record<string, string>) =>
      client.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: 'wc' }, data });
    await secret('good-kubeconfig', { value: Buffer.from(env.kubeconfig).toString('base64') });
    await secret('nokey-kubeconfig', { other: 'eA==' });
    await secret('garbage-kubeconfig', { value: Buffer.from('::: not yaml [').toString('base64') });
    await client.create({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'wc-node' },
      spec: { providerID: 'test://wc' },
    });
  });
  afterAll(async () => {
    provider?.closeAll();
    client?.close();
    await env?.stop();
  });

  it('connects with the Secret kubeconfig and reuses the client while the Secret is unchanged', async () => {
    const wc = await provider({ namespace: 'wc', name: 'good' });
    const nodes = await wc.list('v1', 'Node');
    expect(nodes.items.map((n) => n.metadata.name)).toContain('wc-node');
    expect(await provider({ namespace: 'wc', name: 'good' })).toBe(wc);
  });

  it('reports a missing Secret, a missing key and an invalid kubeconfig with clear errors', async () => {
    await expect(provider({ namespace: 'wc', name: 'absent' })).rejects.toThrow(
      new WorkloadClusterConnectionError('kubeconfig Secret wc/absent-kubeconfig not found'),
    );
    await expect(provider({ namespace: 'wc', name: 'nokey' })).rejects.toThrow('has no "value" key');
    await expect(provider({ namespace: 'wc', name: 'garbage' })).rejects.toThrow(WorkloadClusterConnectionError);
  });

  it("sends every workload cluster request through the options' rate limiter (--clustercache-client-qps/-burst)", async () => {
    let waits = 0;
    const limiter: RequestRateLimiter = { wait: async () => (waits++, 0) };
    const limited = kubeconfigSecretClientProvider(client, { rateLimit: limiter });
    try {
      const wc = await limited({ namespace: 'wc', name: 'good' });
      expect(waits).toBe(0); // reading the Secret goes through the management cluster's client
      await wc.list('v1', 'Node');
      const afterList = waits;
      expect(afterList).toBeGreaterThanOrEqual(1);
      await wc.get({ apiVersion: 'v1', kind: 'Node', name: 'wc-node' });
      expect(waits).toBe(afterList + 1);
      // The unlimited provider's client never asks it.
      await (await provider({ namespace: 'wc', name: 'good' })).list('v1', 'Node');
      expect(waits).toBe(afterList + 1);
    } finally {
      limited.closeAll();
    }
  });
});
