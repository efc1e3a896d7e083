// KCP Machines' readiness gates on envtest with the Machine controller and the in-memory provider (upstream
// controlplane/kubeadm/pkg/desiredstate MandatoryMachineReadinessGates + the Machine controller's Ready summary):
// KCP's health conditions decide Machine Ready, and so KCP's readyReplicas; a Node missing kubeadm's control-plane
// taint makes its Machine not Ready through NodeKubeadmLabelsAndTaintsSet.
import { getCondition, READY_CONDITION, type Machine } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import type { KubeClient } from '@capi/controller-runtime';
import { eventually } from '@capi/envtest';
import { WORKLOAD_CLUSTERS, type WorkloadClusters } from '@capi/inmemory';
import {
  CLUSTER,
  createControlPlane,
  getKcp,
  KCP_POLL,
  listMachines,
  NS,
  startKcpHarness,
  waitForStableControlPlane,
  type KcpHarness,
} from './support/harness';

jest.setTimeout(150_000);

const KCP_REF = {
  apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2',
  kind: 'KubeadmControlPlane',
  namespace: NS,
  name: 'cp',
};

const GATES = [
  'NodeKubeadmLabelsAndTaintsSet',
  'APIServerPodHealthy',
  'ControllerManagerPodHealthy',
  'SchedulerPodHealthy',
  'EtcdPodHealthy',
  'EtcdMemberHealthy',
  'Custom',
];

describe('KCP Machine readiness gates', () => {
  let h: KcpHarness;
  let workload: KubeClient;
  beforeAll(async () => {
    h = await startKcpHarness({ inPlaceUpdates: false });
    await createControlPlane(h.client, { replicas: 3 });
    // A user gate on the KCP's machineTemplate goes after the mandatory ones.
    await h.client.patch(KCP_REF, 'merge', {
      spec: { machineTemplate: { spec: { readinessGates: [{ conditionType: 'Custom', polarity: 'Negative' }] } } },
    });
  });
  afterAll(async () => h?.close());

  it('every Machine carries the mandatory gates then the KCP ones; Ready and readyReplicas follow them', async () => {
    await waitForStableControlPlane(h, 3, 'v1.30.0');
    // The in-memory workload cluster exists once the first control-plane host booted.
    workload = h.app.get<WorkloadClusters>(WORKLOAD_CLUSTERS).get({ namespace: NS, name: CLUSTER })!.client;
    const gated = await eventually(
      async () => {
        const ms = await listMachines(h.client);
        return ms.every(
          (m) =>
            JSON.stringify(m.spec.readinessGates?.map((g) => g.conditionType)) === JSON.stringify(GATES) &&
            getCondition(m, 'NodeKubeadmLabelsAndTaintsSet')?.status === 'True',
        )
          ? ms
          : undefined;
      },
      { ...KCP_POLL, message: 'Machines with the mandatory and the KCP readiness gates' },
    );
    for (const m of gated) {
      expect(getCondition(m, 'NodeKubeadmLabelsAndTaintsSet')).toMatchObject({ status: 'True', reason: 'Set' });
      expect(m.spec.readinessGates?.find((g) => g.conditionType === 'Custom')?.polarity).toBe('Negative');
    }
    // Nobody reports the Custom condition: the Machines are not Ready (upstream's summary counts a missing gate).
    await eventually(
      async () =>
        (await listMachines(h.client)).every(
          (m) =>
            getCondition(m, READY_CONDITION)?.status !== 'True' &&
            (getCondition(m, READY_CONDITION)?.message ?? '').includes('Custom'),
        ),
      { ...KCP_POLL, message: 'Machines not Ready because of the Custom gate' },
    );
    expect((await getKcp(h.client)).status?.readyReplicas).toBe(0);

    // Without the KCP gate, syncMachines takes it off the existing Machines: Ready from KCP's conditions.
    await h.client.patch(KCP_REF, 'merge', { spec: { machineTemplate: { spec: { readinessGates: null } } } });
    await eventually(
      async () =>
        (await listMachines(h.client)).every(
          (m) =>
            JSON.stringify(m.spec.readinessGates?.map((g) => g.conditionType)) ===
              JSON.stringify(GATES.filter((g) => g !== 'Custom')) &&
            getCondition(m, READY_CONDITION)?.status === 'True',
        ),
      { ...KCP_POLL, message: 'Machines with the mandatory gates only, Ready' },
    );
    await eventually(async () => (await getKcp(h.client)).status?.readyReplicas === 3, {
      ...KCP_POLL,
      message: 'readyReplicas 3',
    });
  });

  it('a Node without kubeadm control-plane taint: NodeKubeadmLabelsAndTaintsSet False, its Machine not Ready', async () => {
    const [m] = await listMachines(h.client);
    const nodeName = m.status!.nodeRef!.name;
    const ref = { apiVersion: 'v1', kind: 'Node', name: nodeName };
    const node = await workload.get<KubeObject & { spec?: { taints?: { key: string; effect: string }[] } }>(ref);
    const others = (node.spec?.taints ?? []).filter((t) => t.key !== 'node-role.kubernetes.io/control-plane');
    await workload.patch(ref, 'merge', { spec: { taints: others } });
    // KCP does not watch workload Nodes (README known limits): any KCP event re-reads them.
    await h.client.patch(KCP_REF, 'merge', { metadata: { annotations: { 'test/poke': '1' } } });
    const notReady = await eventually(
      async () => {
        const x = (await listMachines(h.client)).find((y: Machine) => y.metadata.name === m.metadata.name)!;
        return getCondition(x, 'NodeKubeadmLabelsAndTaintsSet')?.status === 'False' &&
          getCondition(x, READY_CONDITION)?.status === 'False'
          ? x
          : undefined;
      },
      { ...KCP_POLL, message: 'the Machine reports the missing taint and is not Ready' },
    );
    expect(getCondition(notReady, 'NodeKubeadmLabelsAndTaintsSet')).toMatchObject({
      reason: 'NotSet',
      message: `Node ${nodeName} does not have the node-role.kubernetes.io/control-plane:NoSchedule taint`,
    });
    expect(getCondition(notReady, READY_CONDITION)?.message).toContain('NodeKubeadmLabelsAndTaintsSet');
    await eventually(async () => (await getKcp(h.client)).status?.readyReplicas === 2, {
      ...KCP_POLL,
      message: 'readyReplicas 2',
    });
  });
});
