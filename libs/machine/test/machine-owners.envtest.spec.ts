// The owner watches of the Machine controller (watchMachineOwners): Machines are looked up through the cache's
// indexes (controller owner, deployment-name label), and owner updates that change nothing a Machine reads (status
// writes, which every MachineSet / MachineDeployment reconcile makes) do not re-enqueue the owner's Machines.
import { MACHINE_DEPLOYMENT_NAME_LABEL } from '@capi/api';
import type { Request } from '@capi/controller-runtime';
import { watchMachineOwners } from '../src/machine-owners';
import { MACHINE_API, createNamespace, ref } from './support/fixtures';
import { startHarness, type Harness } from './support/harness';
import { type KubeObject, type OwnerReference } from '@capi/apimachinery';

jest.setTimeout(60_000);

const template = {
  metadata: { labels: { pool: 'a' } },
  spec: {
    clusterName: 'c1',
    bootstrap: { dataSecretName: 'x' },
    infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'TestMachine', name: 'i' },
  },
};
const ownerRef = (kind: string, o: KubeObject) => ({
  apiVersion: MACHINE_API,
  kind,
  name: o.metadata.name!,
  uid: o.metadata.uid!,
  controller: true,
});

describe('watchMachineOwners (envtest)', () => {
  let h: Harness;
  const ns = 'owners';
  beforeAll(async () => {
    h = await startHarness({ inPlaceUpdates: false });
    await createNamespace(h.client, ns);
  });
  afterAll(async () => h?.close());

  it('enqueues only the owner’s Machines, and not on status-only or replica-only owner updates', async () => {
    const md = await h.client.create<KubeObject>({
      apiVersion: MACHINE_API,
      kind: 'MachineDeployment',
      metadata: { name: 'md', namespace: ns },
      spec: { clusterName: 'c1', replicas: 1, selector: { matchLabels: { pool: 'a' } }, template },
    });
    const ms = await h.client.create<KubeObject>({
      apiVersion: MACHINE_API,
      kind: 'MachineSet',
      metadata: { name: 'ms', namespace: ns, ownerReferences: [ownerRef('MachineDeployment', md)] },
      spec: { clusterName: 'c1', replicas: 1, selector: { matchLabels: { pool: 'a' } }, template },
    });
    const machine = (name: string, labels: Record<string, string>, ownerReferences?: OwnerReference[]) =>
      h.client.create<KubeObject>({
        apiVersion: MACHINE_API,
        kind: 'Machine',
        metadata: { name, namespace: ns, labels, ownerReferences },
        spec: template.spec,
      });
    await machine('ours', { pool: 'a', [MACHINE_DEPLOYMENT_NAME_LABEL]: 'md' }, [ownerRef('MachineSet', ms)]);
    const last = await machine('other', { pool: 'a', [MACHINE_DEPLOYMENT_NAME_LABEL]: 'another-md' }, [
      { ...ownerRef('MachineSet', ms), name: 'another-ms' },
    ]);
    const cache = h.manager.cache;
    const seen = async (write: () => Promise<KubeObject>): Promise<string[]> => {
      const written = await write();
      expect(
        await cache.waitForResourceVersion(
          ref(MACHINE_API, written.kind, ns, written.metadata.name!),
          written.metadata.resourceVersion!,
          5000,
        ),
      ).toBe(true);
      return enqueued.splice(0).sort();
    };
    for (const o of [md, ms, last])
      await cache.waitForResourceVersion(
        ref(MACHINE_API, o.kind, ns, o.metadata.name!),
        o.metadata.resourceVersion!,
        5000,
      );
    const enqueued: string[] = [];
    watchMachineOwners(cache, (r: Request) => r.namespace === ns && enqueued.push(r.name));
    // the adds replayed to the new handlers: the MS's Machine (owner index) and the MD's (label index)
    expect(enqueued.splice(0).sort()).toEqual(['ours', 'ours']);

    const msRef = ref(MACHINE_API, 'MachineSet', ns, 'ms');
    const mdRef = ref(MACHINE_API, 'MachineDeployment', ns, 'md');
    expect(
      await seen(() => h.client.patch(msRef, 'merge', { status: { replicas: 1 } }, { subresource: 'status' })),
    ).toEqual([]);
    expect(
      await seen(() => h.client.patch(mdRef, 'merge', { status: { replicas: 1 } }, { subresource: 'status' })),
    ).toEqual([]);
    // A replica change bumps the generation but UpToDate does not read it (the MD makes several per rollout batch).
    expect(await seen(() => h.client.patch(msRef, 'merge', { spec: { replicas: 2 } }))).toEqual([]);
    expect(await seen(() => h.client.patch(mdRef, 'merge', { spec: { replicas: 2 } }))).toEqual([]);
    expect(
      await seen(() =>
        h.client.patch(msRef, 'merge', { spec: { template: { metadata: { labels: { pool: 'a', x: 'y' } } } } }),
      ),
    ).toEqual(['ours']);
    expect(
      await seen(() =>
        h.client.patch(mdRef, 'merge', { spec: { template: { metadata: { labels: { pool: 'a', x: 'y' } } } } }),
      ),
    ).toEqual(['ours']);
  });
});
