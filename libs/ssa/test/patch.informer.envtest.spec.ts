// A realistic reconcile loop: a Machine read from the informer cache, applied through the SSA cache (project CRDs).
import type { KubeObject } from '@capi/apimachinery';
import { InformerCache, type CountingClientMetrics, type KubeClient } from '@capi/controller-runtime';
import { countingClientFor, startEnvtest, type Envtest } from '@capi/envtest';
import { patch, SsaCache } from '@capi/ssa';

const MACHINE = { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Machine' };
const ref = { ...MACHINE, namespace: 'default', name: 'm1' };
const desiredMachine = (version: string): KubeObject => ({
  ...MACHINE,
  metadata: { name: 'm1', namespace: 'default', labels: { 'cluster.x-k8s.io/cluster-name': 'c1' } },
  spec: {
    clusterName: 'c1',
    version,
    bootstrap: { dataSecretName: 'data' },
    infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'DevMachine', name: 'm1' },
  },
});

describe('ssa.patch in a reconcile loop reading from an informer', () => {
  let env: Envtest;
  let client: KubeClient;
  let requests: CountingClientMetrics;
  let informers: InformerCache;

  beforeAll(async () => {
    env = await startEnvtest();
    ({ client, requests } = countingClientFor(env));
    informers = new InformerCache(client);
    informers.informerFor(MACHINE.apiVersion, MACHINE.kind);
    informers.start();
    expect(await informers.waitForSync(10_000)).toBe(true);
  });
  afterAll(async () => {
    await informers?.stop();
    client?.close();
    await env?.stop();
  });

  /** Reconcile: read from the informer, apply; then wait until the informer has seen the result. Returns writes. */
  async function reconcile(cache: SsaCache, version: string): Promise<number> {
    const original = await informers.tryGet(ref);
    const modified = desiredMachine(version);
    requests.reset();
    await patch(client, modified, { fieldOwner: 'capi-machineset', original, cache });
    const writes = requests.writes('Machine');
    expect(await informers.waitForResourceVersion(ref, modified.metadata.resourceVersion!, 10_000)).toBe(true);
    return writes;
  }

  it('create = 1 apply, steady state = 0, each spec change = exactly 1', async () => {
    const cache = new SsaCache({ controllerName: 'machineset', clock: { now: () => 0 } });
    expect(await reconcile(cache, 'v1.30.0')).toBe(1);
    expect(await reconcile(cache, 'v1.30.0')).toBe(0);
    expect(await reconcile(cache, 'v1.30.0')).toBe(0);
    expect(await reconcile(cache, 'v1.31.0')).toBe(1);
    expect(await reconcile(cache, 'v1.31.0')).toBe(0);
    expect((await client.get(ref)).spec).toMatchObject({ version: 'v1.31.0' });
  });
});
