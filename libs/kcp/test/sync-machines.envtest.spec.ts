// syncMachines end to end: a change of the KCP's machineTemplate labels, annotations and deletion timeouts reaches the
// EXISTING control-plane Machines, their InfraMachines and KubeadmConfigs, without a rollout.
import { BOOTSTRAP_API_VERSION, CONTROLPLANE_API_VERSION, type Machine } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import { eventually } from '@capi/envtest';
import { INMEMORY_API_VERSION } from '@capi/inmemory';
import {
  createControlPlane,
  getKcp,
  KCP_POLL,
  listMachines,
  NS,
  startKcpHarness,
  waitForStableControlPlane,
  type KcpHarness,
} from './support/harness';

jest.setTimeout(90_000);

const KCP_REF = { apiVersion: CONTROLPLANE_API_VERSION, kind: 'KubeadmControlPlane', namespace: NS, name: 'cp' };
const identity = (ms: Machine[]) => ms.map((m) => `${m.metadata.name}/${m.metadata.uid}`).sort();

/** The Machine, its InMemoryMachine and its KubeadmConfig, as the API server has them now. */
async function threeObjectsOf(h: KcpHarness, m: Machine): Promise<KubeObject[]> {
  const machine = await h.client.get<Machine>({
    apiVersion: m.apiVersion,
    kind: 'Machine',
    namespace: NS,
    name: m.metadata.name!,
  });
  const infra = await h.client.get({
    apiVersion: INMEMORY_API_VERSION,
    kind: 'InMemoryMachine',
    namespace: NS,
    name: m.spec.infrastructureRef.name,
  });
  const config = await h.client.get({
    apiVersion: BOOTSTRAP_API_VERSION,
    kind: 'KubeadmConfig',
    namespace: NS,
    name: m.spec.bootstrap.configRef!.name,
  });
  return [machine, infra, config];
}

const ownedLabels = (o: KubeObject, manager: string): string[] => {
  const entry = o.metadata.managedFields?.find(
    (f) => f.manager === manager && f.operation === 'Apply' && !f.subresource,
  );
  const meta = entry?.fieldsV1?.['f:metadata'] as { 'f:labels'?: object } | undefined;
  return Object.keys(meta?.['f:labels'] ?? {}).sort();
};

describe('KubeadmControlPlane syncMachines', () => {
  let h: KcpHarness;
  beforeAll(async () => {
    h = await startKcpHarness({ inPlaceUpdates: false });
    await createControlPlane(h.client, {
      replicas: 2,
      machineTemplateMetadata: { labels: { tier: 'gold', dropme: 'x' }, annotations: { note: 'a', 'drop-note': 'x' } },
    });
  });
  afterAll(async () => h?.close());

  it('propagates machineTemplate labels, annotations and deletion timeouts to existing Machines, InfraMachines and KubeadmConfigs', async () => {
    const before = await waitForStableControlPlane(h, 2, 'v1.30.0');
    for (const m of before) {
      for (const o of await threeObjectsOf(h, m))
        expect(o.metadata.labels).toMatchObject({ tier: 'gold', dropme: 'x' });
    }

    await h.client.patch(KCP_REF, 'merge', {
      spec: {
        machineTemplate: {
          metadata: {
            labels: { tier: 'platinum', dropme: null, added: 'yes' },
            annotations: { note: 'b', 'drop-note': null },
          },
          spec: { deletion: { nodeDrainTimeoutSeconds: 120, nodeDeletionTimeoutSeconds: 30 } },
        },
      },
    });
    const synced = (o: KubeObject) =>
      o.metadata.labels?.tier === 'platinum' &&
      o.metadata.labels.added === 'yes' &&
      !('dropme' in o.metadata.labels) &&
      o.metadata.annotations?.note === 'b' &&
      !('drop-note' in o.metadata.annotations);
    const after = await eventually(
      async () => {
        const machines = await listMachines(h.client);
        for (const m of machines) {
          const objs = await threeObjectsOf(h, m);
          if (!objs.every(synced) || (objs[0] as Machine).spec.deletion?.nodeDrainTimeoutSeconds !== 120)
            return undefined;
        }
        return machines.length === 2 ? machines : undefined;
      },
      {
        ...KCP_POLL,
        message:
          'Machines, InMemoryMachines and KubeadmConfigs carry the new template labels, annotations and timeouts',
      },
    );

    // The same Machines (no rollout), still up-to-date.
    expect(identity(after)).toEqual(identity(before));
    expect((await getKcp(h.client)).status).toMatchObject({ replicas: 2, upToDateReplicas: 2 });
    for (const m of after) {
      const [machine, infra, config] = await threeObjectsOf(h, m);
      expect((machine as Machine).spec.deletion).toEqual({
        nodeDrainTimeoutSeconds: 120,
        nodeDeletionTimeoutSeconds: 30,
      });
      expect((machine as Machine).spec.version).toBe('v1.30.0');
      // What the metadata manager does not own stays: the InfraMachine's cloned-from annotations.
      expect(infra.metadata.annotations).toMatchObject({ 'cluster.x-k8s.io/cloned-from-name': 'tmpl-a' });
      for (const o of [infra, config]) {
        expect(ownedLabels(o, 'capi-kubeadmcontrolplane-metadata')).toEqual([
          'f:added',
          'f:cluster.x-k8s.io/cluster-name',
          'f:cluster.x-k8s.io/control-plane',
          'f:cluster.x-k8s.io/control-plane-name',
          'f:tier',
        ]);
        expect(ownedLabels(o, 'capi-kubeadmcontrolplane')).toEqual([]);
      }
    }

    // A timeout dropped from the template is dropped from the Machines too.
    await h.client.patch(KCP_REF, 'merge', {
      spec: { machineTemplate: { spec: { deletion: { nodeDeletionTimeoutSeconds: null } } } },
    });
    await eventually(
      async () => {
        const machines = await listMachines(h.client);
        return (
          machines.length === 2 &&
          machines.every((m) => JSON.stringify(m.spec.deletion) === JSON.stringify({ nodeDrainTimeoutSeconds: 120 }))
        );
      },
      { ...KCP_POLL, message: 'nodeDeletionTimeoutSeconds removed from the Machines' },
    );
    expect(identity(await listMachines(h.client))).toEqual(identity(before));
  });
});
