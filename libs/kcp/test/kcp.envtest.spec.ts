// KCP on envtest with the Machine controller, the in-memory provider and the reference in-place updater.
import { UPDATING_CONDITION, UP_TO_DATE_CONDITION, getCondition, isUpdateInProgress, type Machine } from '@capi/api';
import type { WatchHandle } from '@capi/controller-runtime';
import { eventually } from '@capi/envtest';
import {
  createControlPlane,
  getKcp,
  infraTemplate,
  KCP_POLL,
  listMachines,
  startKcpHarness,
  NS,
  waitForStableControlPlane,
  type KcpHarness,
} from './support/harness';

jest.setTimeout(90_000);

/** Records, on every Machine event, how many Machines are updating in place at once. */
async function trackUpdating(
  h: KcpHarness,
): Promise<{ max: () => number; seen: Set<string>; upToDateReasonsWhileUpdating: Set<string>; stop: () => void }> {
  const state = new Map<string, boolean>();
  const seen = new Set<string>();
  const upToDateReasonsWhileUpdating = new Set<string>();
  let max = 0;
  const handle: WatchHandle = await h.client.watch<Machine>(
    'cluster.x-k8s.io/v1beta2',
    'Machine',
    { namespace: NS },
    (ev) => {
      if (ev.type === 'BOOKMARK' || ev.type === 'ERROR') return;
      const name = ev.object.metadata.name!;
      if (ev.type === 'DELETED') state.delete(name);
      else state.set(name, isUpdateInProgress(ev.object));
      if (state.get(name)) {
        seen.add(name);
        const reason = getCondition(ev.object, UP_TO_DATE_CONDITION)?.reason;
        if (reason) upToDateReasonsWhileUpdating.add(reason);
      }
      max = Math.max(max, [...state.values()].filter(Boolean).length);
    },
  );
  return { max: () => max, seen, upToDateReasonsWhileUpdating, stop: () => handle.stop() };
}

const identity = (ms: Machine[]) => ms.map((m) => `${m.metadata.name}/${m.metadata.uid}`).sort();

describe('KubeadmControlPlane with InPlaceUpdates on', () => {
  let h: KcpHarness;
  beforeAll(async () => {
    h = await startKcpHarness({ inPlaceUpdates: true });
    await createControlPlane(h.client, { replicas: 3 });
  });
  afterAll(async () => h?.close());

  it('creates 3 Machines with KubeadmConfig and InfraMachine, labels and status', async () => {
    const machines = await waitForStableControlPlane(h, 3, 'v1.30.0');
    for (const m of machines) {
      expect(m.metadata.labels).toMatchObject({
        'cluster.x-k8s.io/cluster-name': 'c1',
        'cluster.x-k8s.io/control-plane': '',
        'cluster.x-k8s.io/control-plane-name': 'cp',
      });
      expect(m.metadata.ownerReferences?.[0]).toMatchObject({
        kind: 'KubeadmControlPlane',
        name: 'cp',
        controller: true,
      });
      const kc = await h.client.get({
        apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta2',
        kind: 'KubeadmConfig',
        namespace: NS,
        name: m.spec.bootstrap.configRef!.name,
      });
      expect(kc.metadata.labels?.['cluster.x-k8s.io/control-plane']).toBe('');
      const infra = await h.client.get({
        apiVersion: 'infrastructure.cluster.x-k8s.io/v1alpha1',
        kind: 'InMemoryMachine',
        namespace: NS,
        name: m.spec.infrastructureRef.name,
      });
      expect(infra.metadata.annotations).toMatchObject({
        'cluster.x-k8s.io/cloned-from-name': 'tmpl-a',
        'cluster.x-k8s.io/cloned-from-groupkind': 'InMemoryMachineTemplate.infrastructure.cluster.x-k8s.io',
      });
    }
    const joining = [];
    for (const m of machines) {
      const kc = await h.client.get<{
        apiVersion: string;
        kind: string;
        metadata: object;
        spec: Record<string, unknown>;
      }>({
        apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta2',
        kind: 'KubeadmConfig',
        namespace: NS,
        name: m.metadata.name!,
      });
      if (kc.spec.joinConfiguration !== undefined) joining.push(m.metadata.name);
    }
    expect(joining).toHaveLength(2); // the first Machine inits, the others join
    const kcp = await getKcp(h.client);
    expect(kcp.status).toMatchObject({
      replicas: 3,
      upToDateReplicas: 3,
      version: 'v1.30.0',
      initialization: { controlPlaneInitialized: true },
    });
    expect(getCondition(kcp, 'MachinesUpToDate')?.status).toBe('True');
  });

  it('version bump covered by the reference updater: same Machines, updated in place one at a time', async () => {
    const before = await waitForStableControlPlane(h, 3, 'v1.30.0');
    await h.registerUpdater();
    const tracker = await trackUpdating(h);
    await h.client.patch(
      { apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2', kind: 'KubeadmControlPlane', namespace: NS, name: 'cp' },
      'merge',
      { spec: { version: 'v1.30.1' } },
    );
    const after = await waitForStableControlPlane(h, 3, 'v1.30.1');
    tracker.stop();
    expect(identity(after)).toEqual(identity(before));
    expect(tracker.seen.size).toBe(3);
    expect(tracker.max()).toBe(1);
    // KCP reported the updating Machines as UpToDate=False/Updating.
    expect(tracker.upToDateReasonsWhileUpdating).toContain('Updating');
    for (const m of after)
      expect(getCondition(m, UPDATING_CONDITION)).toMatchObject({ status: 'False', reason: 'NotUpdating' });
    const events = await h.client.list('v1', 'Event', { namespace: NS });
    const started = events.items.filter((e) => e.reason === 'SuccessfulStartInPlaceUpdate');
    expect(started.map((e) => (e.involvedObject as { name: string }).name).sort()).toEqual(
      before.map((m) => m.metadata.name).sort(),
    );
    // The first Machine's KubeadmConfig became a join config.
    for (const m of after) {
      const kc = await h.client.get<{
        apiVersion: string;
        kind: string;
        metadata: object;
        spec: Record<string, unknown>;
      }>({
        apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta2',
        kind: 'KubeadmConfig',
        namespace: NS,
        name: m.metadata.name!,
      });
      expect(kc.spec.initConfiguration).toBeUndefined();
      expect(kc.spec.joinConfiguration).toBeDefined();
    }
  });

  it('a change the updater does not cover (infra image) rolls the Machines out by replacement', async () => {
    const before = await waitForStableControlPlane(h, 3, 'v1.30.1');
    await h.client.create(infraTemplate('tmpl-b', { image: 'ubuntu-24.04', resources: { cpu: 2, memoryMiB: 2048 } }));
    await h.client.patch(
      { apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2', kind: 'KubeadmControlPlane', namespace: NS, name: 'cp' },
      'merge',
      {
        spec: {
          machineTemplate: {
            spec: {
              infrastructureRef: {
                apiGroup: 'infrastructure.cluster.x-k8s.io',
                kind: 'InMemoryMachineTemplate',
                name: 'tmpl-b',
              },
            },
          },
        },
      },
    );
    const tracker = await trackUpdating(h);
    const after = await eventually(
      async () => {
        const ms = await waitForStableControlPlane(h, 3, 'v1.30.1');
        return ms.every((m) => !before.some((b) => b.metadata.name === m.metadata.name)) ? ms : undefined;
      },
      { ...KCP_POLL, message: '3 Machines replaced', timeoutMs: 80_000 },
    );
    tracker.stop();
    expect(tracker.seen.size).toBe(0);
    for (const m of after) {
      const infra = await h.client.get({
        apiVersion: 'infrastructure.cluster.x-k8s.io/v1alpha1',
        kind: 'InMemoryMachine',
        namespace: NS,
        name: m.spec.infrastructureRef.name,
      });
      expect(infra.spec).toMatchObject({ image: 'ubuntu-24.04' });
    }
  });
});

describe('KubeadmControlPlane with InPlaceUpdates off', () => {
  let h: KcpHarness;
  beforeAll(async () => {
    h = await startKcpHarness({ inPlaceUpdates: false });
    // One replica with maxSurge 1 keeps this suite fast and covers the surge path.
    await createControlPlane(h.client, { replicas: 1, maxSurge: 1 });
  });
  afterAll(async () => h?.close());

  it('a version bump rolls out by replacement (surge first), never marking a Machine for in-place', async () => {
    const before = await waitForStableControlPlane(h, 1, 'v1.30.0');
    await h.registerUpdater();
    const tracker = await trackUpdating(h);
    await h.client.patch(
      { apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2', kind: 'KubeadmControlPlane', namespace: NS, name: 'cp' },
      'merge',
      { spec: { version: 'v1.30.1' } },
    );
    let maxMachines = 0;
    const after = await eventually(
      async () => {
        const all = await listMachines(h.client);
        maxMachines = Math.max(maxMachines, all.length);
        const ms = await waitForStableControlPlane(h, 1, 'v1.30.1');
        return ms.every((m) => !before.some((b) => b.metadata.name === m.metadata.name)) ? ms : undefined;
      },
      { ...KCP_POLL, message: 'the Machine replaced', timeoutMs: 80_000 },
    );
    tracker.stop();
    expect(after).toHaveLength(1);
    expect(maxMachines).toBeLessThanOrEqual(2);
    expect(tracker.seen.size).toBe(0);
  });

  it('deleting the KCP deletes its Machines, then drops the finalizer', async () => {
    const kcpRef = {
      apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2',
      kind: 'KubeadmControlPlane',
      namespace: NS,
      name: 'cp',
    };
    expect((await getKcp(h.client)).metadata.finalizers).toContain('kubeadm.controlplane.cluster.x-k8s.io');
    await h.client.delete(kcpRef);
    await eventually(
      async () => (await h.client.tryGet(kcpRef)) === undefined && (await listMachines(h.client)).length === 0,
      { ...KCP_POLL, message: 'KCP and Machines gone' },
    );
  });
});
