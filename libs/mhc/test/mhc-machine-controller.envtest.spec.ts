// MHC next to the real Machine controller: the Machine controller reports Updating=True for a Machine marked for an
// in-place update; MHC has no in-place special case (as upstream), so a Node NotReady past its timeout during the
// update is remediated; the two controllers' status writes keep each other's conditions.
import { UPDATE_IN_PROGRESS_ANNOTATION } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import { eventually, settle } from '@capi/envtest';
import {
  CAPI,
  conditionOf,
  createClusterWithWorkload,
  machineRef,
  startHarness,
  type Harness,
} from './support/harness';

jest.setTimeout(60_000);
const INFRA = 'infrastructure.cluster.x-k8s.io/v1beta2';
const BOTH = ['machinehealthcheck', 'machine'];

describe('MachineHealthCheck with the Machine controller (envtest)', () => {
  let h: Harness;
  const ns = 'mhc-int';
  beforeAll(async () => {
    h = await startHarness({ withMachineController: true });
    await createClusterWithWorkload(h, ns, 'c1');
  });
  afterAll(async () => h?.close());
  const getMachine = () => h.client.get<KubeObject>(machineRef(ns, 'w1'));

  it('a Machine being updated in place whose Node goes NotReady past the timeout is remediated (no in-place special case)', async () => {
    const infra = await h.client.create<KubeObject>({
      apiVersion: INFRA,
      kind: 'TestMachine',
      metadata: { name: 'w1-infra', namespace: ns },
      spec: { providerID: 'test://w1' },
    });
    await h.client.updateStatus({ ...infra, status: { initialization: { provisioned: true } } });
    const node = await h.wl.create<KubeObject>({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'n-w1' },
      spec: { providerID: 'test://w1' },
    });
    await h.wl.updateStatus({
      ...node,
      status: {
        conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', lastTransitionTime: h.clock.at(-600) }],
      },
    });
    await h.client.create({
      apiVersion: CAPI,
      kind: 'Machine',
      metadata: {
        name: 'w1',
        namespace: ns,
        labels: { 'cluster.x-k8s.io/cluster-name': 'c1', pool: 'w' },
        annotations: { [UPDATE_IN_PROGRESS_ANNOTATION]: '' },
      },
      spec: {
        clusterName: 'c1',
        bootstrap: { dataSecretName: 'w1-data' },
        infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'TestMachine', name: 'w1-infra' },
      },
    });
    await h.client.create({
      apiVersion: CAPI,
      kind: 'MachineHealthCheck',
      metadata: { name: 'pool-w', namespace: ns },
      spec: {
        clusterName: 'c1',
        selector: { matchLabels: { pool: 'w' } },
        checks: {
          unhealthyNodeConditions: [{ type: 'Ready', status: 'False', timeoutSeconds: 300 }],
          unhealthyMachineConditions: [{ type: 'Updating', status: 'True', timeoutSeconds: 1800 }],
        },
      },
    });

    // The Machine controller finds the Node and reports the update. For MHC the Machine is neither healthy nor
    // unhealthy while Updating=True runs towards its timeout (upstream: "likely to go unhealthy").
    await eventually(
      async () => {
        const m = await getMachine();
        return (m.status as { nodeRef?: object } | undefined)?.nodeRef && conditionOf(m, 'Updating')?.status === 'True';
      },
      { message: 'Machine running and updating', timeoutMs: 20_000 },
    );
    // Reconciled until the MHC's cache has the Machine as read above (under load it can lag: without the nodeRef the
    // Machine is still within the Node startup timeout, 600 s); then the Updating timeout is the next check.
    const result = await eventually(
      async () => {
        const r = await h.reconcile({ namespace: ns, name: 'pool-w' });
        return r && 'requeueAfterMs' in r && (r.requeueAfterMs ?? 0) > 900_000 ? r : undefined;
      },
      { message: "the MHC's cache has the Machine's nodeRef", timeoutMs: 20_000 },
    );
    expect(result).toEqual({ requeueAfterMs: 1801_000 });
    const mhc = await h.client.get<KubeObject>({
      apiVersion: CAPI,
      kind: 'MachineHealthCheck',
      namespace: ns,
      name: 'pool-w',
    });
    expect(mhc.status).toMatchObject({ expectedMachines: 1, currentHealthy: 0, targets: ['w1'] });
    expect(conditionOf(await getMachine(), 'HealthCheckSucceeded')).toBeUndefined();

    // The Node goes NotReady during the update, for longer than the Node timeout: remediation is requested.
    await h.wl.patch(
      { apiVersion: 'v1', kind: 'Node', name: 'n-w1' },
      'merge',
      {
        status: {
          conditions: [
            { type: 'Ready', status: 'False', reason: 'KubeletNotReady', lastTransitionTime: h.clock.at(-600) },
          ],
        },
      },
      { subresource: 'status' },
    );
    await h.reconcile({ namespace: ns, name: 'pool-w' });
    await settle(h.manager, BOTH, { quietMs: 300, timeoutMs: 10_000 });
    const m = await eventually(async () => {
      const x = await getMachine();
      return conditionOf(x, 'OwnerRemediated') && x;
    }, 'OwnerRemediated');
    expect(conditionOf(m, 'HealthCheckSucceeded')).toMatchObject({ status: 'False', reason: 'UnhealthyNode' });
    expect(conditionOf(m, 'OwnerRemediated')).toMatchObject({ status: 'False', reason: 'WaitingForRemediation' });
    // The Machine controller's conditions survived MHC's write (and vice versa).
    expect(conditionOf(m, 'Updating')).toMatchObject({ status: 'True', reason: 'InPlaceUpdating' });
  });
});
