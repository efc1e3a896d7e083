// A manager configured as upstream's (managerSecretCacheOptions) against a real API server (envtest, either target):
// its client reads Secrets and ConfigMaps from the API; its cache holds only cluster-labelled Secrets, without
// managedFields, with data only for Cluster API's `<cluster>-<purpose>` Secrets (upstream core/setup/setup.go,
// controlplane/kubeadm/setup/setup.go); the secret-caching client reads those and finds no other.
import { CLUSTER_NAME_LABEL } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import {
  hasPurposeSuffix,
  lookup,
  managerSecretCacheOptions,
  SECRET_KIND,
  certificatesForInitialControlPlane,
} from '@capi/certs';
import { CountingClientMetrics, KubeClient, Manager } from '@capi/controller-runtime';
import { kubeConfigFor, startEnvtest, type Envtest } from '@capi/envtest';

jest.setTimeout(60_000);

const ns = 'manager-cache';
const data = { 'tls.crt': Buffer.from('crt').toString('base64'), 'tls.key': Buffer.from('key').toString('base64') };
const secret = (name: string, labelled: boolean): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: ns, ...(labelled ? { labels: { [CLUSTER_NAME_LABEL]: 'c1' } } : {}) },
  data,
});
const ref = (kind: string, name: string) => ({ apiVersion: 'v1', kind, namespace: ns, name });

describe('the manager caches Secrets as upstream (envtest)', () => {
  let env: Envtest;
  let client: KubeClient;
  let metrics: CountingClientMetrics;
  let manager: Manager;
  beforeAll(async () => {
    env = await startEnvtest({ installProjectCrds: false });
    const kc = kubeConfigFor(env);
    client = new KubeClient(kc);
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    for (const [name, labelled] of [
      ['c1-ca', true],
      ['c1-kubeconfig', true],
      ['c1-md-0-bootstrap-abcde', true],
      ['other-ca', false],
    ] as const)
      await client.create(secret(name, labelled));
    await client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: ns }, data: {} });
    metrics = new CountingClientMetrics();
    manager = new Manager({
      client: new KubeClient(kc, { metrics }),
      namespace: ns,
      ...managerSecretCacheOptions(),
    });
    await manager.start();
  });
  afterAll(async () => {
    await manager?.stop();
    client?.close();
    await env?.stop();
  });

  it('holds only cluster-labelled Secrets, without managedFields, with data only for purpose-named ones', async () => {
    const cached = await manager.secretCachingClient.list('v1', 'Secret', { namespace: ns });
    const byName = Object.fromEntries(cached.items.map((s) => [s.metadata.name!, s]));
    expect(Object.keys(byName).sort()).toEqual(['c1-ca', 'c1-kubeconfig', 'c1-md-0-bootstrap-abcde']);
    for (const s of cached.items) {
      expect(s.metadata.managedFields).toBeUndefined();
      expect(s.data).toEqual(hasPurposeSuffix(s.metadata.name!) ? data : undefined);
    }
    expect(byName['c1-md-0-bootstrap-abcde'].data).toBeUndefined();
    expect(await manager.secretCachingClient.tryGet(ref('Secret', 'other-ca'))).toBeUndefined();
  });

  it("reads Secrets and ConfigMaps through the manager's client from the API, whole", async () => {
    metrics.reset();
    const bootstrap = await manager.cachedClient.get(ref('Secret', 'c1-md-0-bootstrap-abcde'));
    expect(bootstrap.data).toEqual(data);
    expect((await manager.cachedClient.get(ref('Secret', 'other-ca'))).data).toEqual(data);
    expect(await manager.cachedClient.tryGet(ref('ConfigMap', 'cm'))).toBeDefined();
    expect([metrics.count('get', 'Secret'), metrics.count('get', 'ConfigMap')]).toEqual([2, 1]);
    expect(Object.keys(manager.cache.informerSizes())).toEqual([SECRET_KIND]);
  });

  it('looks certificates up in the cache first and from the API when the cache does not hold them (LookupCached)', async () => {
    metrics.reset();
    const [ca] = certificatesForInitialControlPlane(false);
    await lookup(manager.cachedClient, { namespace: ns, name: 'c1' }, [ca], manager.secretCachingClient);
    expect(ca.keyPair).toEqual({ cert: 'crt', key: 'key' });
    expect(metrics.count('get', 'Secret')).toBe(0);

    const [other] = certificatesForInitialControlPlane(false);
    await lookup(manager.cachedClient, { namespace: ns, name: 'other' }, [other], manager.secretCachingClient);
    expect(other.keyPair).toEqual({ cert: 'crt', key: 'key' });
    expect(metrics.count('get', 'Secret')).toBe(1);
  });
});
