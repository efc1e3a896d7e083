// The InPlaceOnly rollout policy on a KubeadmControlPlane (this project's extension), maxSurge 1: a covered change (patch
// versions: from 1.31 KCP's default kubeadm feature gates change too, which the reference updater does not cover) goes
// in place with no surge Machine; a change the updaters cover only partly (the reference updater covers the version,
// nobody the infrastructure image) replaces nothing and says why in RolloutBlocked; a revert clears it; MHC
// remediation still deletes the unhealthy Machine and the scale up back to spec.replicas creates one from the current
// spec (the held-back change included: KCP has no other spec, and a missing etcd member costs fault tolerance); a
// second updater covering the image lets the rollout resume in place. Creations and deletions are counted by UID.
import { encodePatch, type Machine } from '@capi/api';
import { realClock, type KubeObject } from '@capi/apimachinery';
import { eventually } from '@capi/envtest';
import { INMEMORY_API_VERSION } from '@capi/inmemory';
import { ROLLOUT_POLICY_ANNOTATION } from '@capi/inplace';
import { decideMachineMarking, MHC_FIELD_MANAGER } from '@capi/mhc';
import {
  createControlPlane,
  getKcp,
  infraTemplate,
  listMachines,
  startKcpHarness,
  waitForStableControlPlane,
  NS,
  type KcpHarness,
} from './support/harness';

jest.setTimeout(240_000);

const KCP_REF = {
  apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2',
  kind: 'KubeadmControlPlane',
  namespace: NS,
  name: 'cp',
};
const POLL = { timeoutMs: 80_000, intervalMs: 200 };

describe('KubeadmControlPlane with the InPlaceOnly rollout policy', () => {
  let h: KcpHarness;
  const created = new Set<string>();
  const deleted = new Set<string>();
  let stopWatch: (() => void) | undefined;

  beforeAll(async () => {
    h = await startKcpHarness({ inPlaceUpdates: true, inPlaceOnlyRecheckMs: 500 });
    await h.registerUpdater();
    await createControlPlane(h.client, { replicas: 3, maxSurge: 1 });
    await h.client.create(infraTemplate('tmpl-b', { image: 'ubuntu-24.04', resources: { cpu: 2, memoryMiB: 2048 } }));
    await h.client.patch(KCP_REF, 'merge', {
      metadata: { annotations: { [ROLLOUT_POLICY_ANNOTATION]: 'InPlaceOnly' } },
    });
    await waitForStableControlPlane(h, 3, 'v1.30.0');
    // A watch starts with ADDED for what exists: those are not creations.
    const existing = new Set(await uids());
    const w = await h.client.watch<Machine>('cluster.x-k8s.io/v1beta2', 'Machine', { namespace: NS }, (ev) => {
      const uid = ev.object.metadata.uid ?? '';
      if (ev.type === 'ADDED' && !existing.has(uid)) created.add(uid);
      if (ev.type === 'DELETED') deleted.add(uid);
    });
    stopWatch = () => w.stop();
  });
  afterAll(async () => {
    stopWatch?.();
    await h?.close();
  });

  const uids = async () => (await listMachines(h.client)).map((m) => m.metadata.uid ?? '').sort();
  const blocked = async () => (await getKcp(h.client)).status?.conditions?.find((c) => c.type === 'RolloutBlocked');
  const blockedIs = (status: string) =>
    eventually(
      async () => {
        const c = await blocked();
        return c?.status === status && c;
      },
      { ...POLL, message: `RolloutBlocked ${status}` },
    );
  const setSpec = (version: string, template: string) =>
    h.client.patch(KCP_REF, 'merge', {
      spec: { version, machineTemplate: { spec: { infrastructureRef: { name: template } } } },
    });
  const imageOf = async (m: Machine) =>
    (
      (
        await h.client.get<KubeObject>({
          apiVersion: INMEMORY_API_VERSION,
          kind: 'InMemoryMachine',
          namespace: NS,
          name: m.spec.infrastructureRef.name,
        })
      ).spec as { image?: string }
    ).image;

  it('updates a covered change in place, with no surge Machine, and reports RolloutBlocked False', async () => {
    const before = await uids();
    await setSpec('v1.30.1', 'tmpl-a');
    await waitForStableControlPlane(h, 3, 'v1.30.1');
    expect(await uids()).toEqual(before);
    expect((await blockedIs('False')).reason).toBe('NotBlocked');
    expect([...created]).toEqual([]);
    expect([...deleted]).toEqual([]);
  });

  it('replaces nothing for a partly covered change and names only the uncovered field and the updaters asked', async () => {
    const before = await uids();
    await setSpec('v1.30.2', 'tmpl-b');
    const c = await blockedIs('True');
    expect(c.reason).toBe('NotCoveredByUpdaters');
    expect(c.message).toContain('not covered by updaters: InMemoryMachine spec.image');
    expect(c.message).toContain('(updaters asked: inmemory-updater)');
    expect(c.message).not.toContain('version');
    // The reconcile that wrote the condition held the Machine back instead of deleting or surging.
    const machines = await listMachines(h.client);
    expect(machines.map((m) => m.metadata.uid).sort()).toEqual(before);
    expect(machines.every((m) => m.spec.version === 'v1.30.1' && !m.metadata.deletionTimestamp)).toBe(true);
    expect([...created]).toEqual([]);
    expect([...deleted]).toEqual([]);
  });

  it('clears RolloutBlocked when the spec is reverted', async () => {
    const before = await uids();
    await setSpec('v1.30.1', 'tmpl-a');
    await blockedIs('False');
    expect(await uids()).toEqual(before);
    expect([...created]).toEqual([]);
  });

  it('remediation deletes the unhealthy Machine; the scale up to spec.replicas uses the current spec', async () => {
    await setSpec('v1.30.2', 'tmpl-b');
    await blockedIs('True');
    const [victim, ...others] = await listMachines(h.client);
    const marking = decideMachineMarking(
      victim,
      { state: 'Unhealthy', reason: 'UnhealthyNode', message: 'Node is not ready' },
      { remediationAllowed: true, clusterPaused: false, clock: realClock },
    );
    await h.client.apply(
      {
        apiVersion: 'cluster.x-k8s.io/v1beta2',
        kind: 'Machine',
        metadata: { name: victim.metadata.name, namespace: NS, uid: victim.metadata.uid },
        status: { conditions: marking.conditions },
      },
      { fieldManager: MHC_FIELD_MANAGER, force: true, subresource: 'status' },
    );
    const replacement = await eventually(
      async () => {
        const fresh = (await listMachines(h.client)).find((m) => created.has(m.metadata.uid ?? ''));
        return deleted.has(victim.metadata.uid ?? '') && fresh?.status?.nodeRef && fresh;
      },
      { ...POLL, message: 'the remediated Machine replaced' },
    );
    expect(created.size).toBe(1);
    expect(replacement.spec.version).toBe('v1.30.2');
    expect(await imageOf(replacement)).toBe('ubuntu-24.04');
    // The other Machines are still held back, not replaced.
    const now = await listMachines(h.client);
    for (const o of others) expect(now.find((m) => m.metadata.uid === o.metadata.uid)?.spec.version).toBe('v1.30.1');
    expect((await blockedIs('True')).reason).toBe('NotCoveredByUpdaters');
  });

  it('resumes in place once a second updater covers the rest', async () => {
    const before = await uids();
    const createdBefore = created.size;
    await h.addExtension('infra', [
      {
        hook: 'CanUpdateMachine',
        name: 'can-update-machine',
        handle: (req) => ({
          status: 'Success',
          infrastructureMachinePatch: encodePatch('JSONMergePatch', { spec: req.desired.infrastructureMachine.spec }),
        }),
      },
      { hook: 'UpdateMachine', name: 'update-machine', handle: () => ({ status: 'Success', retryAfterSeconds: 0 }) },
    ]);
    const after = await waitForStableControlPlane(h, 3, 'v1.30.2');
    expect(after.map((m) => m.metadata.uid).sort()).toEqual(before);
    expect(created.size).toBe(createdBefore);
    for (const m of after) expect(await imageOf(m)).toBe('ubuntu-24.04');
    await blockedIs('False');
  });
});
