// KCP's pre-terminate hook end to end (upstream kubeadmcontrolplane_controller.go reconcilePreTerminateHook with the
// Machine controller's reconcileDelete): a scale down deletes a Machine, the Machine controller stops before deleting
// its InfraMachine, KCP moves etcd leadership and removes the member (recorded by the harness's workload cluster), then
// removes its hook and the Machine goes away. KCP deleting itself removes the hooks without touching etcd.
import { KCP_PRE_TERMINATE_HOOK_CLEANUP_ANNOTATION, type Machine } from '@capi/api';
import { eventually } from '@capi/envtest';
import { INMEMORY_API_VERSION } from '@capi/inmemory';
import {
  createControlPlane,
  KCP_NAME,
  KCP_POLL,
  listMachines,
  NS,
  startKcpHarness,
  waitForStableControlPlane,
  type KcpHarness,
} from './support/harness';
import type { EtcdCall } from './support/recording-etcd';

jest.setTimeout(120_000);

const KCP_REF = { apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2', kind: 'KubeadmControlPlane', namespace: NS };

describe('KCP pre-terminate hook (envtest)', () => {
  let h: KcpHarness;
  beforeAll(async () => {
    h = await startKcpHarness({ inPlaceUpdates: false });
    await createControlPlane(h.client, { replicas: 3 });
  });
  afterAll(async () => h?.close());

  it('every KCP Machine carries the kcp-cleanup pre-terminate hook', async () => {
    const machines = await waitForStableControlPlane(h, 3, 'v1.30.0');
    for (const m of machines) expect(m.metadata.annotations?.[KCP_PRE_TERMINATE_HOOK_CLEANUP_ANNOTATION]).toBe('');
    expect(h.etcd.calls).toEqual([]);
  });

  it('a scale down removes the etcd member while the InfraMachine still exists, then the Machine goes away', async () => {
    const before = await listMachines(h.client);
    // Seen at the moment KCP removes the member: the deleting Machine and its InfraMachine.
    const atRemoval: { machine?: Machine; infraExists?: boolean; infraDeleting?: boolean } = {};
    let deletingAtForward: boolean | undefined;
    h.etcd.onCall = async (call: EtcdCall) => {
      const m = before.find((x) => x.metadata.name === call.machine)!;
      const ref = { apiVersion: m.apiVersion, kind: 'Machine', namespace: NS, name: call.machine };
      if (call.op === 'forwardEtcdLeadership') {
        deletingAtForward ??= !!(await h.client.tryGet<Machine>(ref))?.metadata.deletionTimestamp;
        return;
      }
      atRemoval.machine = await h.client.tryGet<Machine>(ref);
      const infra = await h.client.tryGet({
        apiVersion: INMEMORY_API_VERSION,
        kind: m.spec.infrastructureRef.kind,
        namespace: NS,
        name: m.spec.infrastructureRef.name,
      });
      atRemoval.infraExists = !!infra;
      atRemoval.infraDeleting = !!infra?.metadata.deletionTimestamp;
    };
    await h.client.patch({ ...KCP_REF, name: KCP_NAME }, 'merge', { spec: { replicas: 2 } });

    const removal = await eventually(() => h.etcd.calls.find((c) => c.op === 'removeEtcdMemberForMachine'), {
      ...KCP_POLL,
      message: 'etcd member removal recorded',
    });
    const deleted = removal.machine;
    // Leadership is moved first, to a Machine that stays.
    const forward = h.etcd.calls.find((c) => c.op === 'forwardEtcdLeadership');
    expect(forward).toMatchObject({ machine: deleted, cluster: `${NS}/c1` });
    expect(forward!.candidate).toBeDefined();
    expect(forward!.candidate).not.toBe(deleted);
    expect(h.etcd.calls.indexOf(forward!)).toBeLessThan(h.etcd.calls.indexOf(removal));
    // The scale down moved it before deleting the Machine (upstream scale.go scaleDownControlPlane).
    expect(deletingAtForward).toBe(false);

    // The Machine controller was waiting on the hook: the InfraMachine was still there, not even deleting.
    expect(atRemoval.machine?.metadata.deletionTimestamp).toBeDefined();
    expect(atRemoval.machine?.metadata.annotations?.[KCP_PRE_TERMINATE_HOOK_CLEANUP_ANNOTATION]).toBe('');
    expect(atRemoval.machine?.status?.conditions?.find((c) => c.type === 'Deleting')).toMatchObject({
      status: 'True',
      reason: 'WaitingForPreTerminateHook',
    });
    expect(atRemoval).toMatchObject({ infraExists: true, infraDeleting: false });

    await eventually(
      async () => {
        const machines = await listMachines(h.client);
        return machines.length === 2 && machines.every((m) => m.metadata.name !== deleted);
      },
      { ...KCP_POLL, message: `Machine ${deleted} gone, 2 left` },
    );
    await waitForStableControlPlane(h, 2, 'v1.30.0');
    // Members removed for that Machine only (a retried reconcile may repeat the removal: it is idempotent, as upstream).
    const removedFor = new Set(h.etcd.calls.filter((c) => c.op === 'removeEtcdMemberForMachine').map((c) => c.machine));
    expect([...removedFor]).toEqual([deleted]);
  });

  it('deleting the KCP removes the hooks and deletes the Machines without touching etcd', async () => {
    h.etcd.onCall = undefined;
    const calls = h.etcd.calls.length;
    await h.client.delete({ ...KCP_REF, name: KCP_NAME });
    await eventually(async () => (await listMachines(h.client)).length === 0, {
      ...KCP_POLL,
      message: 'control plane Machines gone',
    });
    await eventually(async () => !(await h.client.tryGet({ ...KCP_REF, name: KCP_NAME })), {
      ...KCP_POLL,
      message: 'KCP gone',
    });
    expect(h.etcd.calls.length).toBe(calls);
  });
});
