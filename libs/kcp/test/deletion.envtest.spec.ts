// KCP deletion as upstream's reconcileDelete: the control plane goes last. While a worker Machine of the Cluster
// exists, the KCP waits (Deleting: WaitingForWorkersDeletion naming it) and keeps its Machines; once the worker is
// gone it deletes them (WaitingForMachineDeletion) and then goes itself.
import { CLUSTER_API_VERSION, CLUSTER_NAME_LABEL, getCondition, type Machine } from '@capi/api';
import { eventually } from '@capi/envtest';
import {
  CLUSTER,
  createControlPlane,
  getKcp,
  KCP_NAME,
  KCP_POLL,
  listMachines,
  NS,
  startKcpHarness,
  waitForStableControlPlane,
  type KcpHarness,
} from './support/harness';

jest.setTimeout(120_000);

const KCP_REF = { apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2', kind: 'KubeadmControlPlane', namespace: NS };
const WORKER = { apiVersion: CLUSTER_API_VERSION, kind: 'Machine', namespace: NS, name: 'worker-0' };

describe('KCP deletion waits for the workers (envtest)', () => {
  let h: KcpHarness;
  beforeAll(async () => {
    h = await startKcpHarness({ inPlaceUpdates: false });
    await createControlPlane(h.client, { replicas: 1 });
  });
  afterAll(async () => h?.close());

  it('keeps its Machines while a worker Machine exists, then deletes them and goes', async () => {
    await waitForStableControlPlane(h, 1, 'v1.30.0');
    // A worker of the Cluster (no control-plane label); a finalizer of the test's keeps it until the test lets go.
    await h.client.create<Machine>({
      ...WORKER,
      metadata: {
        name: WORKER.name,
        namespace: NS,
        labels: { [CLUSTER_NAME_LABEL]: CLUSTER },
        finalizers: ['test/hold'],
      },
      spec: {
        clusterName: CLUSTER,
        bootstrap: { dataSecretName: 'none' },
        infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'InMemoryMachine', name: 'absent' },
      },
    } as unknown as Machine);
    await h.client.delete({ ...KCP_REF, name: KCP_NAME });

    const waiting = await eventually(
      async () => {
        const c = getCondition(await getKcp(h.client), 'Deleting');
        return c?.reason === 'WaitingForWorkersDeletion' ? c : undefined;
      },
      { ...KCP_POLL, message: 'KCP Deleting: WaitingForWorkersDeletion' },
    );
    expect(waiting).toMatchObject({
      status: 'True',
      message: 'KubeadmControlPlane deletion blocked because following objects still exist:\n* Machines: worker-0',
    });
    const cpMachines = (await listMachines(h.client)).filter((m) => m.metadata.name !== WORKER.name);
    expect(cpMachines).toHaveLength(1);
    expect(cpMachines[0].metadata.deletionTimestamp).toBeUndefined();

    // The worker goes: the KCP deletes its Machine, then itself.
    await h.client.delete(WORKER);
    await h.client.patch(WORKER, 'merge', { metadata: { finalizers: null } });
    await eventually(async () => !(await h.client.tryGet({ ...KCP_REF, name: KCP_NAME })), {
      ...KCP_POLL,
      message: 'KCP gone',
    });
    expect(await listMachines(h.client)).toEqual([]);
  });
});
