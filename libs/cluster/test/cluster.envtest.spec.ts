// The Cluster controller alone against an API server (upstream core/reconcilers/cluster/cluster_controller_test.go
// TestClusterReconciler, cluster_controller_phases_test.go): finalizer, adoption of the referenced objects, the phases,
// Paused, and the deletion's order with held finalizers standing in for slow controllers.
import { CLUSTER_API_VERSION, type Cluster } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import { eventually } from '@capi/envtest';
import { getTable } from './support/table';
import {
  clusterRef,
  createCluster,
  inMemoryClusterRef,
  startClusterHarness,
  type ClusterHarness,
} from './support/harness';

const FINALIZER = 'cluster.cluster.x-k8s.io';
const HOLD = 'test.cluster.x-k8s.io/hold';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Cluster controller', () => {
  let h: ClusterHarness;
  beforeAll(async () => {
    h = await startClusterHarness();
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  const getCluster = (ns: string, name: string) => h.client.tryGet<Cluster>(clusterRef(ns, name));
  const condition = (c: Cluster | undefined, type: string) => c?.status?.conditions?.find((x) => x.type === type);

  it('adds the finalizer, adopts the InMemoryCluster, and copies its endpoint once provisioned', async () => {
    await createCluster(h.client, 'c1', 'demo');
    const provisioning = await eventually(async () => {
      const c = await getCluster('c1', 'demo');
      return c?.metadata.finalizers?.includes(FINALIZER) && c.status?.phase === 'Provisioning' && c;
    }, 'finalizer and phase Provisioning');
    expect(provisioning.status?.initialization?.infrastructureProvisioned).toBeUndefined();
    expect(condition(provisioning, 'Paused')).toMatchObject({ status: 'False', reason: 'NotPaused' });
    const infra = await eventually(async () => {
      const o = await h.client.tryGet<KubeObject>(inMemoryClusterRef('c1', 'demo'));
      return o?.metadata.ownerReferences?.length && o;
    }, 'the InMemoryCluster adopted');
    expect(infra.metadata.ownerReferences).toEqual([
      {
        apiVersion: CLUSTER_API_VERSION,
        kind: 'Cluster',
        name: 'demo',
        uid: provisioning.metadata.uid,
        controller: false,
      },
    ]);
    expect(infra.metadata.labels).toEqual({ 'cluster.x-k8s.io/cluster-name': 'demo' });

    // The provider reports the endpoint and provisioned; the Cluster follows (its watch on the owned object).
    await h.client.patch(inMemoryClusterRef('c1', 'demo'), 'merge', {
      spec: { controlPlaneEndpoint: { host: '10.0.0.1', port: 6443 } },
    });
    await h.client.patch(
      inMemoryClusterRef('c1', 'demo'),
      'merge',
      { status: { initialization: { provisioned: true } } },
      { subresource: 'status' },
    );
    const provisioned = await eventually(async () => {
      const c = await getCluster('c1', 'demo');
      return c?.status?.phase === 'Provisioned' && c;
    }, 'phase Provisioned');
    expect(provisioned.spec?.controlPlaneEndpoint).toEqual({ host: '10.0.0.1', port: 6443 });
    expect(provisioned.status?.initialization?.infrastructureProvisioned).toBe(true);
    expect(provisioned.status?.observedGeneration).toBe(provisioned.metadata.generation);
    const events = await eventually(async () => {
      const list = await h.client.list('v1', 'Event', { namespace: 'c1' });
      const reasons = list.items.map((e) => (e as unknown as { reason: string }).reason);
      return reasons.includes('InfrastructureReady') && reasons.includes('Provisioned') && reasons;
    }, 'InfrastructureReady and phase events');
    expect(events).toContain('Provisioning');

    // kubectl get clusters -o wide: PHASE filled (CP/W DESIRED stay empty: this Cluster has no control plane or workers).
    const rows = await getTable(h.env.kubeconfig, '/apis/cluster.x-k8s.io/v1beta2/namespaces/c1/clusters');
    expect(rows).toEqual([expect.objectContaining({ Name: 'demo', Phase: 'Provisioned' })]);
  });

  it('re-applies the finalizer if removed', async () => {
    await createCluster(h.client, 'c2', 'demo', { infraCluster: false });
    await eventually(
      async () => (await getCluster('c2', 'demo'))?.metadata.finalizers?.includes(FINALIZER),
      'finalizer',
    );
    await h.client.patch(clusterRef('c2', 'demo'), 'merge', { metadata: { finalizers: null } });
    await eventually(
      async () => (await getCluster('c2', 'demo'))?.metadata.finalizers?.includes(FINALIZER),
      'finalizer again',
    );
  });

  it('does nothing but the Paused condition while spec.paused, and carries on once unpaused', async () => {
    await createCluster(h.client, 'c3', 'demo', { paused: true });
    const paused = await eventually(async () => {
      const c = await getCluster('c3', 'demo');
      return condition(c, 'Paused')?.status === 'True' && c;
    }, 'Paused=True');
    expect(condition(paused, 'Paused')).toMatchObject({
      reason: 'Paused',
      message: 'Cluster spec.paused is set to true',
    });
    await sleep(500);
    expect((await h.client.get<KubeObject>(inMemoryClusterRef('c3', 'demo'))).metadata.ownerReferences).toBeUndefined();
    expect((await getCluster('c3', 'demo'))?.status?.phase).toBeUndefined();

    await h.client.patch(clusterRef('c3', 'demo'), 'merge', { spec: { paused: false } });
    await eventually(async () => {
      const o = await h.client.tryGet<KubeObject>(inMemoryClusterRef('c3', 'demo'));
      return o?.metadata.ownerReferences?.length;
    }, 'the InMemoryCluster adopted after unpausing');
    expect(condition(await getCluster('c3', 'demo'), 'Paused')).toMatchObject({ status: 'False', reason: 'NotPaused' });
  });

  it('deletes owned workers first, waits for them, then the infrastructure cluster, then lets the Cluster go', async () => {
    const cluster = await createCluster(h.client, 'c4', 'demo');
    const owner = [{ apiVersion: CLUSTER_API_VERSION, kind: 'Cluster', name: 'demo', uid: cluster.metadata.uid! }];
    const machineRef = { apiVersion: CLUSTER_API_VERSION, kind: 'Machine', namespace: 'c4', name: 'worker' };
    await h.client.create({
      ...machineRef,
      metadata: {
        name: 'worker',
        namespace: 'c4',
        labels: { 'cluster.x-k8s.io/cluster-name': 'demo' },
        ownerReferences: owner,
        finalizers: [HOLD],
      },
      spec: {
        clusterName: 'demo',
        bootstrap: { dataSecretName: 'x' },
        infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'InMemoryMachine', name: 'worker' },
      },
    });
    await h.client.patch(inMemoryClusterRef('c4', 'demo'), 'merge', { metadata: { finalizers: [HOLD] } });
    await eventually(
      async () => (await getCluster('c4', 'demo'))?.metadata.finalizers?.includes(FINALIZER),
      'finalizer',
    );

    await h.client.delete(clusterRef('c4', 'demo'));
    await eventually(
      async () => (await h.client.get<KubeObject>(machineRef)).metadata.deletionTimestamp,
      'the worker Machine deleted',
    );
    // While a worker is left the infrastructure cluster stays (the Cluster requeues every 5 s).
    await sleep(1500);
    expect(
      (await h.client.get<KubeObject>(inMemoryClusterRef('c4', 'demo'))).metadata.deletionTimestamp,
    ).toBeUndefined();
    const waiting = await getCluster('c4', 'demo');
    expect(waiting?.status?.phase).toBe('Deleting');
    expect(condition(waiting, 'Deleting')).toMatchObject({
      status: 'True',
      reason: 'WaitingForWorkersDeletion',
      message: '* Worker Machines: worker',
    });

    await h.client.patch(machineRef, 'merge', { metadata: { finalizers: null } });
    await eventually(
      async () => (await h.client.get<KubeObject>(inMemoryClusterRef('c4', 'demo'))).metadata.deletionTimestamp,
      { message: 'the InMemoryCluster deleted once the worker is gone', timeoutMs: 15_000 },
    );
    await eventually(
      async () => condition(await getCluster('c4', 'demo'), 'Deleting')?.reason === 'WaitingForInfrastructureDeletion',
      'Deleting=True, WaitingForInfrastructureDeletion',
    );
    expect(condition(await getCluster('c4', 'demo'), 'Deleting')?.message).toBe(
      'Waiting for InMemoryCluster to be deleted',
    );

    await h.client.patch(inMemoryClusterRef('c4', 'demo'), 'merge', { metadata: { finalizers: null } });
    await eventually(async () => !(await getCluster('c4', 'demo')), 'the Cluster gone');
  });
});
