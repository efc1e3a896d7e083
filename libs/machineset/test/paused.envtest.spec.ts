// Paused MachineDeployments and MachineSets (upstream Reconcile: paused.EnsurePausedCondition): while the Cluster has
// spec.paused, or the object the cluster.x-k8s.io/paused annotation, the controllers change nothing and the Paused
// condition says why; unpausing (the Cluster's pause transition is watched) lets them go on.
import { CLUSTER_API_VERSION, PAUSED_ANNOTATION, type MachineDeployment, type MachineSet } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import { settle } from '@capi/envtest';
import {
  createDeployment,
  eventually,
  INFRA_GROUP,
  machinesOf,
  MD_REF,
  startHarness,
  type Harness,
} from './support/harness';

jest.setTimeout(60_000);

const NS = 'paused';
const CLUSTER = { apiVersion: CLUSTER_API_VERSION, kind: 'Cluster', namespace: NS, name: 'c1' };
const msRef = (name: string) => ({ apiVersion: CLUSTER_API_VERSION, kind: 'MachineSet', namespace: NS, name });
const paused = (o: KubeObject) =>
  (
    (o.status as { conditions?: { type: string; status: string; reason: string; message?: string }[] })?.conditions ??
    []
  )
    .filter((c) => c.type === 'Paused')
    .map(({ status, reason, message }) => ({ status, reason, ...(message ? { message } : {}) }))[0];

describe('paused MachineDeployments and MachineSets', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ inPlaceUpdates: false, machineLifecycle: false });
    await createDeployment(h.client, NS, { replicas: 2, version: 'v1.30.0', maxSurge: 1, maxUnavailable: 0 });
    await eventually(async () => (await machinesOf(h.client, NS)).length === 2, '2 Machines');
  });
  afterAll(async () => {
    await h?.close();
  });

  const md = () => h.client.get<MachineDeployment>(MD_REF(NS));
  const ownedSets = async () =>
    (await h.client.list<MachineSet>(CLUSTER_API_VERSION, 'MachineSet', { namespace: NS })).items.filter((s) =>
      s.metadata.ownerReferences?.some((r) => r.kind === 'MachineDeployment'),
    );

  it('a paused Cluster stops the MachineDeployment and its MachineSet until it is unpaused', async () => {
    await eventually(async () => paused(await md())?.status === 'False', 'MachineDeployment NotPaused');
    expect(paused(await md())).toEqual({ status: 'False', reason: 'NotPaused' });
    await h.client.patch(CLUSTER, 'merge', { spec: { paused: true } });
    const clusterPaused = { status: 'True', reason: 'Paused', message: 'Cluster spec.paused is set to true' };
    await eventually(async () => paused(await md())?.status === 'True', 'MachineDeployment Paused');
    expect(paused(await md())).toEqual(clusterPaused);
    const [ms] = await ownedSets();
    await eventually(
      async () => paused(await h.client.get(msRef(ms.metadata.name!)))?.status === 'True',
      'MachineSet Paused',
    );

    await h.client.patch(MD_REF(NS), 'merge', { spec: { replicas: 3 } });
    await settle(h.manager, ['machinedeployment', 'machineset']);
    expect((await ownedSets()).map((s) => s.spec.replicas)).toEqual([2]);
    expect(await machinesOf(h.client, NS)).toHaveLength(2);

    await h.client.patch(CLUSTER, 'merge', { spec: { paused: false } });
    await eventually(async () => (await machinesOf(h.client, NS)).length === 3, '3 Machines once unpaused');
    expect(paused(await md())).toEqual({ status: 'False', reason: 'NotPaused' });
    await eventually(
      async () => paused(await h.client.get(msRef(ms.metadata.name!)))?.status === 'False',
      'MachineSet NotPaused',
    );
  });

  it('the paused annotation stops a MachineSet, and says so, until it is removed', async () => {
    const ms: MachineSet = {
      apiVersion: CLUSTER_API_VERSION,
      kind: 'MachineSet',
      metadata: { name: 'annotated', namespace: NS, annotations: { [PAUSED_ANNOTATION]: '' } },
      spec: {
        clusterName: 'c1',
        replicas: 1,
        selector: { matchLabels: { pool: 'annotated' } },
        template: {
          metadata: { labels: { pool: 'annotated' } },
          spec: {
            clusterName: 'c1',
            version: 'v1.30.0',
            bootstrap: { dataSecretName: 'data' },
            infrastructureRef: { apiGroup: INFRA_GROUP, kind: 'TestMachineTemplate', name: 'tmpl' },
          },
        },
      },
    };
    await h.client.create(ms);
    await eventually(async () => paused(await h.client.get(msRef('annotated')))?.status === 'True', 'Paused');
    expect(paused(await h.client.get(msRef('annotated')))).toEqual({
      status: 'True',
      reason: 'Paused',
      message: `MachineSet has the ${PAUSED_ANNOTATION} annotation`,
    });
    await settle(h.manager, ['machineset']);
    const ofAnnotated = async () =>
      (await machinesOf(h.client, NS)).filter((m) => m.metadata.labels?.pool === 'annotated');
    expect(await ofAnnotated()).toHaveLength(0);

    await h.client.patch(msRef('annotated'), 'merge', { metadata: { annotations: { [PAUSED_ANNOTATION]: null } } });
    await eventually(async () => (await ofAnnotated()).length === 1, 'a Machine once the annotation is gone');
    expect(paused(await h.client.get(msRef('annotated')))).toEqual({ status: 'False', reason: 'NotPaused' });
  });

  it('a paused MachineSet being deleted keeps its finalizer until it is unpaused', async () => {
    await h.client.patch(msRef('annotated'), 'merge', { metadata: { annotations: { [PAUSED_ANNOTATION]: '' } } });
    await eventually(async () => paused(await h.client.get(msRef('annotated')))?.status === 'True', 'Paused');
    await h.client.delete(msRef('annotated'));
    await settle(h.manager, ['machineset']);
    const deleting = await h.client.get(msRef('annotated'));
    expect(deleting.metadata.deletionTimestamp).toBeTruthy();
    expect(deleting.metadata.finalizers).toEqual(['cluster.x-k8s.io/machineset']);
    await h.client.patch(msRef('annotated'), 'merge', { metadata: { annotations: { [PAUSED_ANNOTATION]: null } } });
    await eventually(async () => !(await h.client.tryGet(msRef('annotated'))), 'deleted once unpaused');
  });
});
