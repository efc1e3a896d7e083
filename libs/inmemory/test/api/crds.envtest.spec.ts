// The provider's CRDs: contract labels, structural schemas the embedded API server serves and validates.
import { CONTRACT_VERSION_LABEL_V1BETA2, CrdRegistry, crdRegistry } from '@capi/api';
import { isInvalid, type KubeClient } from '@capi/controller-runtime';
import { clientFor, startEnvtest, type Envtest } from '@capi/envtest';
import { INMEMORY_API_VERSION, inMemoryCrds, registerInMemoryKinds } from '@capi/inmemory';

jest.setTimeout(30_000);

let env: Envtest;
let client: KubeClient;
beforeAll(async () => {
  env = await startEnvtest({ installProjectCrds: false, crds: inMemoryCrds() });
  client = clientFor(env);
});
afterAll(async () => {
  client?.close();
  await env?.stop();
});

describe('in-memory CRDs', () => {
  it('are registered once in the shared registry and carry the v1beta2 contract label', () => {
    registerInMemoryKinds();
    registerInMemoryKinds(); // idempotent
    const names = crdRegistry.crds().map((c) => c.metadata.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'inmemoryclusters.infrastructure.cluster.x-k8s.io',
        'inmemorymachines.infrastructure.cluster.x-k8s.io',
        'inmemorymachinetemplates.infrastructure.cluster.x-k8s.io',
      ]),
    );
    for (const crd of inMemoryCrds())
      expect(crd.metadata.labels).toEqual({ [CONTRACT_VERSION_LABEL_V1BETA2]: 'v1alpha1' });
    const other = new CrdRegistry();
    registerInMemoryKinds(other);
    expect(other.list().map((d) => d.kind)).toEqual(['InMemoryCluster', 'InMemoryMachine', 'InMemoryMachineTemplate']);
  });

  it('serve valid objects and prune unknown fields', async () => {
    const created = await client.create({
      apiVersion: INMEMORY_API_VERSION,
      kind: 'InMemoryMachineTemplate',
      metadata: { name: 't', namespace: 'default' },
      spec: {
        template: {
          spec: {
            image: 'img',
            resources: { cpu: 2 },
            backend: { inMemory: { vmBootstrapTimeout: '1m30s' } },
            bogus: 1,
          },
        },
      },
    });
    expect((created.spec as { template: { spec: Record<string, unknown> } }).template.spec).toEqual({
      image: 'img',
      resources: { cpu: 2 },
      backend: { inMemory: { vmBootstrapTimeout: '1m30s' } },
    });
  });

  it('reject a malformed vmBootstrapTimeout and out-of-range resources with Invalid', async () => {
    const bad = (spec: Record<string, unknown>) =>
      client.create({
        apiVersion: INMEMORY_API_VERSION,
        kind: 'InMemoryMachine',
        metadata: { name: `bad-${Math.random().toString(36).slice(2, 7)}`, namespace: 'default' },
        spec,
      });
    const errorOf = (p: Promise<unknown>) =>
      p.then(
        () => undefined,
        (e: unknown) => e,
      );
    const e1 = await errorOf(bad({ backend: { inMemory: { vmBootstrapTimeout: 'ten minutes' } } }));
    expect(isInvalid(e1)).toBe(true);
    expect(String((e1 as Error).message)).toContain('vmBootstrapTimeout');
    expect(isInvalid(await errorOf(bad({ resources: { cpu: 0 } })))).toBe(true);
  });
});
