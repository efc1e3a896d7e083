// KCP's default workload cluster reads Nodes like upstream's getControlPlaneNodes (control-plane label only, plus a
// Machine's Node by name) and from a Node informer: reconciles do not list every workload Node over HTTP.
import type { KubeClient } from '@capi/controller-runtime';
import { clientFor, eventually, startEnvtest, type Envtest } from '@capi/envtest';
import { CONTROL_PLANE_NODE_ROLE_LABEL, KubeconfigWorkloadClusterProvider } from '../src/workload-cluster';

jest.setTimeout(30_000);

const nodeLists = async (env: Envtest) =>
  Object.entries((await env.countRequests()).byVerbResource)
    .filter(([k]) => /^list \S*\/nodes$/.test(k))
    .reduce((s, [, n]) => s + n, 0);

describe('KubeconfigWorkloadClusterProvider nodes() (envtest)', () => {
  let env: Envtest;
  let client: KubeClient;
  let provider: KubeconfigWorkloadClusterProvider;
  const cluster = { namespace: 'wc', name: 'c1' };
  beforeAll(async () => {
    env = await startEnvtest();
    client = clientFor(env);
    provider = new KubeconfigWorkloadClusterProvider(client);
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'wc' } });
    await client.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'c1-kubeconfig', namespace: 'wc' },
      data: { value: Buffer.from(env.kubeconfig).toString('base64') },
    });
    for (const name of ['cp-1', 'cp-2'])
      await client.create({
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name, labels: { [CONTROL_PLANE_NODE_ROLE_LABEL]: '' } },
      });
    for (let i = 0; i < 5; i++)
      await client.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: `worker-${i}` } });
  });
  afterAll(async () => {
    await provider?.close();
    client?.close();
    await env?.stop();
  });

  it('returns the control-plane Nodes and the named unlabelled ones, not the workers', async () => {
    const wc = await provider.forCluster(cluster);
    const nodes = await wc.nodes(['cp-1', 'worker-3', 'missing']);
    expect(nodes.map((n) => [n.name, n.controlPlane]).sort()).toEqual([
      ['cp-1', true],
      ['cp-2', true],
      ['worker-3', false],
    ]);
  });

  it('serves repeated reads from the Node informer (no list after its first), and sees a new control-plane Node', async () => {
    await env.resetRequests();
    for (let i = 0; i < 10; i++) await (await provider.forCluster(cluster)).nodes(['cp-1']);
    await client.create({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'cp-3', labels: { [CONTROL_PLANE_NODE_ROLE_LABEL]: '' } },
    });
    await eventually(
      async () => (await (await provider.forCluster(cluster)).nodes()).some((n) => n.name === 'cp-3'),
      'cp-3 seen',
    );
    expect(await nodeLists(env)).toBe(0);
  });
});
