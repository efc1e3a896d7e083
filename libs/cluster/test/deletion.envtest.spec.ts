// Deleting a Cluster with a KubeadmControlPlane and a MachineDeployment on the in-memory provider, every controller
// running: everything goes, in upstream's order (core/reconcilers/cluster/cluster_controller.go reconcileDelete):
// workers before the control plane, the control plane before the infrastructure cluster.
import { CLUSTER_API_VERSION, CONTROLPLANE_API_VERSION, type Cluster } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import { eventually } from '@capi/envtest';
import { INMEMORY_API_VERSION } from '@capi/inmemory';
import {
  clusterRef,
  createCluster,
  inMemoryClusterRef,
  startClusterHarness,
  type ClusterHarness,
} from './support/harness';

const NS = 'del';
const NAME = 'demo';

describe('Cluster deletion with the whole stack', () => {
  let h: ClusterHarness;
  beforeAll(async () => {
    h = await startClusterHarness({ stack: true });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  const list = async (apiVersion: string, kind: string) =>
    (await h.client.list<KubeObject>(apiVersion, kind, { namespace: NS })).items;
  const isWorker = (m: KubeObject) => !('cluster.x-k8s.io/control-plane' in (m.metadata.labels ?? {}));

  it('removes everything: workers, then the control plane, then the infrastructure cluster, then the Cluster', async () => {
    await createCluster(h.client, NS, NAME, { controlPlaneReplicas: 1, workerReplicas: 1 });
    await eventually(
      async () => {
        const c = await h.client.tryGet<Cluster>(clusterRef(NS, NAME));
        const machines = await list(CLUSTER_API_VERSION, 'Machine');
        return (
          c?.status?.phase === 'Provisioned' &&
          c.status.initialization?.controlPlaneInitialized &&
          machines.length === 2 &&
          machines.every((m) => (m.status as { nodeRef?: unknown } | undefined)?.nodeRef)
        );
      },
      { message: 'the Cluster provisioned with 2 Machines with Nodes', timeoutMs: 90_000, intervalMs: 250 },
    );
    const kcpOwners = (
      await h.client.get<KubeObject>({
        apiVersion: CONTROLPLANE_API_VERSION,
        kind: 'KubeadmControlPlane',
        namespace: NS,
        name: `${NAME}-cp`,
      })
    ).metadata.ownerReferences;
    expect(kcpOwners?.map((r) => r.kind)).toEqual(['Cluster']);

    await h.client.delete(clusterRef(NS, NAME));
    // Watch the order: at every look, a deleting control plane means no worker is left, and a deleting
    // infrastructure cluster means the control plane is gone.
    const violations: string[] = [];
    const seen = new Set<string>();
    await eventually(
      async () => {
        const [mds, machines, kcps, infras, clusters] = await Promise.all([
          list(CLUSTER_API_VERSION, 'MachineDeployment'),
          list(CLUSTER_API_VERSION, 'Machine'),
          list(CONTROLPLANE_API_VERSION, 'KubeadmControlPlane'),
          list(INMEMORY_API_VERSION, 'InMemoryCluster'),
          list(CLUSTER_API_VERSION, 'Cluster'),
        ]);
        const workers = [...mds, ...machines.filter(isWorker)];
        if (kcps.some((k) => k.metadata.deletionTimestamp)) {
          seen.add('control plane deleting');
          if (workers.length) violations.push(`control plane deleting while ${workers.length} worker objects exist`);
        }
        if (infras.some((i) => i.metadata.deletionTimestamp)) {
          seen.add('infrastructure deleting');
          if (kcps.length) violations.push('infrastructure cluster deleting while the control plane exists');
        }
        if (clusters.length && !infras.length && kcps.length)
          violations.push('infrastructure gone before the control plane');
        return clusters.length === 0;
      },
      { message: 'the Cluster gone', timeoutMs: 120_000, intervalMs: 50 },
    );
    expect(violations).toEqual([]);
    // The control plane takes several reconciles to go (its Machine drains); the InMemoryCluster may go between looks.
    expect(seen).toContain('control plane deleting');
    for (const [apiVersion, kind] of [
      [CLUSTER_API_VERSION, 'MachineDeployment'],
      [CLUSTER_API_VERSION, 'MachineSet'],
      [CLUSTER_API_VERSION, 'Machine'],
      [CONTROLPLANE_API_VERSION, 'KubeadmControlPlane'],
      [INMEMORY_API_VERSION, 'InMemoryCluster'],
      [INMEMORY_API_VERSION, 'InMemoryMachine'],
    ])
      expect(`${kind}: ${(await list(apiVersion, kind)).map((o) => o.metadata.name).join(',')}`).toBe(`${kind}: `);
    expect(await h.client.tryGet(inMemoryClusterRef(NS, NAME))).toBeUndefined();
  }, 240_000);
});
