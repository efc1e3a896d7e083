// MachineDeployment rollouts end to end on envtest: MachineSet/MachineDeployment/Machine controllers, the reference
// updater behind HTTPS, and a test infra provider.
import {
  CLUSTER_API_VERSION,
  isUpdateInProgress,
  type Machine,
  type MachineDeployment,
  type MachineSet,
} from '@capi/api';
import type { KubeClient } from '@capi/controller-runtime';
import {
  conditionStatus,
  createDeployment,
  describeNamespace,
  FAILING_EXTENSION_NAMESPACE,
  eventually,
  INFRA_API_VERSION,
  machinesOf,
  MD_REF,
  startHarness,
  type Harness,
} from './support/harness';

jest.setTimeout(90_000);

async function readyMachines(c: KubeClient, ns: string, replicas: number, version: string): Promise<Machine[]> {
  return withState(c, ns, () =>
    eventually(async () => {
      const ms = await machinesOf(c, ns);
      const ok =
        ms.length === replicas &&
        ms.every(
          (m) =>
            !m.metadata.deletionTimestamp &&
            m.spec.version === version &&
            conditionStatus(m, 'Available') === 'True' &&
            conditionStatus(m, 'UpToDate') === 'True',
        );
      return ok && ms;
    }, `${replicas} available, up-to-date Machines at ${version} in ${ns}`),
  );
}

/** Adds the namespace's objects to a timeout error, so a failing rollout says where it stopped. */
async function withState<T>(c: KubeClient, ns: string, f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    (e as Error).message += `\n${await describeNamespace(c, ns)}`;
    throw e;
  }
}

async function machineDeploymentSettled(c: KubeClient, ns: string, replicas: number): Promise<MachineDeployment> {
  return eventually(async () => {
    const md = await c.get<MachineDeployment>(MD_REF(ns));
    const s = md.status;
    return s?.replicas === replicas && s.availableReplicas === replicas && s.upToDateReplicas === replicas && md;
  }, `MachineDeployment ${ns}/md settled at ${replicas}`);
}

async function changeTemplate(c: KubeClient, ns: string, spec: Record<string, unknown>): Promise<void> {
  await c.patch(MD_REF(ns), 'merge', { spec: { template: { spec } } });
}

const identity = (ms: Machine[]) => ms.map((m) => `${m.metadata.name}/${m.metadata.uid}`).sort();
const infraNames = async (c: KubeClient, ns: string) =>
  (await c.list(INFRA_API_VERSION, 'TestMachine', { namespace: ns })).items.map((o) => o.metadata.name).sort();

describe('MachineDeployment rollout with InPlaceUpdates on', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ inPlaceUpdates: true });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('updates a 3-replica MachineDeployment in place when the updater covers the change (spec.version)', async () => {
    const ns = 'inplace';
    await createDeployment(h.client, ns, { replicas: 3, version: 'v1.30.0', maxSurge: 0, maxUnavailable: 1 });
    const before = await readyMachines(h.client, ns, 3, 'v1.30.0');
    const infraBefore = await infraNames(h.client, ns);
    await machineDeploymentSettled(h.client, ns, 3);

    // maxUnavailable 1, maxSurge 0: updating Machines are unavailable, so at most one updates at a time.
    const updating = new Set<string>();
    let maxUpdating = 0;
    const watch = await h.client.watch<Machine>(CLUSTER_API_VERSION, 'Machine', { namespace: ns }, (ev) => {
      const inProgress = ev.type !== 'DELETED' && isUpdateInProgress(ev.object);
      if (inProgress) updating.add(ev.object.metadata.name ?? '');
      else updating.delete(ev.object.metadata.name ?? '');
      maxUpdating = Math.max(maxUpdating, updating.size);
    });
    await changeTemplate(h.client, ns, { version: 'v1.31.0' });
    const after = await readyMachines(h.client, ns, 3, 'v1.31.0');
    watch.stop();
    expect(maxUpdating).toBe(1);

    expect(identity(after)).toEqual(identity(before));
    expect(await infraNames(h.client, ns)).toEqual(infraBefore);
    for (const m of after) {
      expect(conditionStatus(m, 'Updating')).toBe('False');
      expect(m.metadata.annotations ?? {}).not.toHaveProperty([
        'in-place-updates.internal.cluster.x-k8s.io/update-in-progress',
      ]);
      expect(m.metadata.annotations ?? {}).not.toHaveProperty(['runtime.cluster.x-k8s.io/pending-hooks']);
    }
    expect(h.hookCalls.UpdateMachine).toBeGreaterThanOrEqual(3);
    // One CanUpdateMachineSet call for the single old MS -> new MS pair, however often the MD reconciled.
    expect(h.canUpdateCallsIn(ns)).toBe(1);

    const md = await machineDeploymentSettled(h.client, ns, 3);
    const machineSets = (await h.client.list<MachineSet>(CLUSTER_API_VERSION, 'MachineSet', { namespace: ns })).items;
    const owner = after[0].metadata.ownerReferences?.find((r) => r.controller)?.name;
    const newMS = machineSets.find((ms) => ms.metadata.name === owner)!;
    expect(newMS.spec.replicas).toBe(3);
    expect(newMS.spec.template.spec.version).toBe('v1.31.0');
    expect(
      after.every(
        (m) =>
          m.metadata.labels?.['machine-template-hash'] === newMS.spec.selector.matchLabels?.['machine-template-hash'],
      ),
    ).toBe(true);
    // The moved Machines' InfraMachines carry the new MachineSet's labels too (syncMachines, capi-machineset-metadata).
    await eventually(async () => {
      const infras = (await h.client.list(INFRA_API_VERSION, 'TestMachine', { namespace: ns })).items;
      return (
        infras.length === 3 &&
        infras.every(
          (o) =>
            o.metadata.labels?.['cluster.x-k8s.io/set-name'] === owner &&
            o.metadata.labels?.['machine-template-hash'] === newMS.spec.selector.matchLabels?.['machine-template-hash'],
        )
      );
    }, 'InfraMachines labelled with the new MachineSet');
    // The drained old MS is deleted and no move annotation is left on the new one.
    await eventually(async () => {
      const sets = (await h.client.list<MachineSet>(CLUSTER_API_VERSION, 'MachineSet', { namespace: ns })).items;
      const keys = sets.flatMap((ms) => Object.keys(ms.metadata.annotations ?? {}));
      return (
        sets.length === 1 &&
        sets[0].metadata.name === owner &&
        !keys.some((k) => k.startsWith('in-place-updates.internal.cluster.x-k8s.io/'))
      );
    }, 'old MachineSet deleted, move annotations removed');
    expect(md.status?.conditions?.find((c) => c.type === 'MachinesUpToDate')?.status).toBe('True');
  });

  it('maxUnavailable 0, maxSurge 1: creates one surge Machine, updates one in place, deletes the surplus old one', async () => {
    const ns = 'surge';
    await createDeployment(h.client, ns, { replicas: 2, version: 'v1.30.0', maxSurge: 1, maxUnavailable: 0 });
    const before = await readyMachines(h.client, ns, 2, 'v1.30.0');
    const updates = h.hookCalls.UpdateMachine;
    await changeTemplate(h.client, ns, { version: 'v1.31.0' });
    const after = await readyMachines(h.client, ns, 2, 'v1.31.0');
    const kept = after.filter((m) => before.some((b) => b.metadata.uid === m.metadata.uid));
    // Once the new MS has its 2 replicas (surge + moved one), moves stop and the last old Machine is deleted.
    expect(kept).toHaveLength(1);
    expect(h.hookCalls.UpdateMachine).toBeGreaterThan(updates);
    expect(h.canUpdateCallsIn(ns)).toBe(1);
  });

  it('rolls out by replacement when the change is not covered (infrastructure template spec)', async () => {
    const ns = 'uncovered';
    await createDeployment(h.client, ns, {
      replicas: 2,
      version: 'v1.30.0',
      maxSurge: 2,
      maxUnavailable: 0,
      templates: { tmpl: { image: 'v1' }, 'tmpl-v2': { image: 'v2' } },
    });
    const before = await readyMachines(h.client, ns, 2, 'v1.30.0');
    // The planner asks CanUpdateMachineSet only while the new MachineSet is below the MD's replicas; with maxSurge 2
    // that is the first plan alone, so it must see the old MachineSet's Machines (status.replicas, which can lag
    // behind the Machines under load) or it replaces without asking.
    await machineDeploymentSettled(h.client, ns, 2);
    await changeTemplate(h.client, ns, {
      infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'TestMachineTemplate', name: 'tmpl-v2' },
    });
    const after = await eventually(async () => {
      const ms = await readyMachines(h.client, ns, 2, 'v1.30.0');
      return ms.every((m) => !before.some((b) => b.metadata.uid === m.metadata.uid)) && ms;
    }, 'all Machines replaced');
    expect(after.every((m) => m.metadata.annotations?.['runtime.cluster.x-k8s.io/pending-hooks'] === undefined)).toBe(
      true,
    );
    expect(h.canUpdateCallsIn(ns)).toBe(1);
    const infra = await h.client.list(INFRA_API_VERSION, 'TestMachine', { namespace: ns });
    expect(infra.items.map((i) => (i.metadata.annotations ?? {})['cluster.x-k8s.io/cloned-from-name']).sort()).toEqual([
      'tmpl-v2',
      'tmpl-v2',
    ]);
  });

  it('surfaces a failing CanUpdateMachineSet extension as a reconcile error on the MachineDeployment and keeps the old Machines', async () => {
    const ns = FAILING_EXTENSION_NAMESPACE;
    await createDeployment(h.client, ns, { replicas: 1, version: 'v1.30.0', maxSurge: 0, maxUnavailable: 1 });
    const before = await readyMachines(h.client, ns, 1, 'v1.30.0');
    await changeTemplate(h.client, ns, { version: 'v1.31.0' });
    const md = await eventually(async () => {
      const md = await h.client.get<MachineDeployment>(MD_REF(ns));
      const c = md.status?.conditions?.find((x) => x.type === 'RollingOut');
      return c?.status === 'Unknown' && md;
    }, 'RollingOut reports the extension error');
    const rollingOut = md.status!.conditions!.find((x) => x.type === 'RollingOut')!;
    expect(rollingOut.message).toContain('extension is broken');
    const machines = await machinesOf(h.client, ns);
    expect(identity(machines)).toEqual(identity(before));
    expect(machines.every((m) => !m.metadata.deletionTimestamp && !isUpdateInProgress(m))).toBe(true);
    const sets = (await h.client.list<MachineSet>(CLUSTER_API_VERSION, 'MachineSet', { namespace: ns })).items;
    expect(sets.flatMap((s) => Object.keys(s.metadata.annotations ?? {})).filter((k) => k.includes('move'))).toEqual(
      [],
    );
    await h.client.delete(MD_REF(ns)); // stop the retries
  });

  it('a missing infrastructure template of the new MachineSet is an error, not a replacement rollout', async () => {
    const ns = 'missing-template';
    await createDeployment(h.client, ns, { replicas: 2, version: 'v1.30.0', maxSurge: 0, maxUnavailable: 1 });
    const before = await readyMachines(h.client, ns, 2, 'v1.30.0');
    await changeTemplate(h.client, ns, {
      version: 'v1.31.0',
      infrastructureRef: {
        apiGroup: 'infrastructure.cluster.x-k8s.io',
        kind: 'TestMachineTemplate',
        name: 'not-there',
      },
    });
    const md = await withState(h.client, ns, () =>
      eventually(async () => {
        const md = await h.client.get<MachineDeployment>(MD_REF(ns));
        const c = md.status?.conditions?.find((x) => x.type === 'RollingOut');
        return c?.status === 'Unknown' && c.reason === 'TemplateNotFound' && md;
      }, 'RollingOut reports the missing template'),
    );
    expect(md.status!.conditions!.find((x) => x.type === 'RollingOut')!.message).toContain(
      `TestMachineTemplate ${ns}/not-there`,
    );
    // Upstream canUpdateMachineSetInPlace returns the error: the old MachineSet is not scaled down meanwhile.
    const until = Date.now() + 2000;
    while (Date.now() < until) {
      const machines = await machinesOf(h.client, ns);
      expect(identity(machines.filter((m) => !m.metadata.deletionTimestamp))).toEqual(identity(before));
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(h.canUpdateCallsIn(ns)).toBe(0);
    await h.client.delete(MD_REF(ns)); // stop the retries
  });

  it('OnDelete never asks CanUpdateMachineSet and never sets move annotations', async () => {
    const ns = 'ondelete';
    await createDeployment(h.client, ns, {
      replicas: 1,
      version: 'v1.30.0',
      maxSurge: 0,
      maxUnavailable: 0,
      onDelete: true,
    });
    const before = await readyMachines(h.client, ns, 1, 'v1.30.0');
    await changeTemplate(h.client, ns, { version: 'v1.31.0' });
    const sets = await eventually(async () => {
      const items = (await h.client.list<MachineSet>(CLUSTER_API_VERSION, 'MachineSet', { namespace: ns })).items;
      const old = items.find((s) => s.spec.template.spec.version === 'v1.30.0');
      return (
        items.length === 2 && old?.metadata.annotations?.['cluster.x-k8s.io/disable-machine-create'] === 'true' && items
      );
    }, 'new MachineSet created, old one must not create Machines');
    expect(
      sets.flatMap((s) => Object.keys(s.metadata.annotations ?? {})).filter((k) => k.startsWith('in-place-updates')),
    ).toEqual([]);
    expect(sets.find((s) => s.spec.template.spec.version === 'v1.31.0')!.spec.replicas).toBe(0);
    expect(h.canUpdateCallsIn(ns)).toBe(0);
    expect(identity(await machinesOf(h.client, ns))).toEqual(identity(before));
  });
});

describe('MachineDeployment rollout with InPlaceUpdates off', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ inPlaceUpdates: false });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('replaces Machines for a change the updater would cover, without calling the extension', async () => {
    const ns = 'gateoff';
    await createDeployment(h.client, ns, { replicas: 2, version: 'v1.30.0', maxSurge: 2, maxUnavailable: 0 });
    const before = await readyMachines(h.client, ns, 2, 'v1.30.0');
    await changeTemplate(h.client, ns, { version: 'v1.31.0' });
    const after = await readyMachines(h.client, ns, 2, 'v1.31.0');
    expect(after.some((m) => before.some((b) => b.metadata.uid === m.metadata.uid))).toBe(false);
    expect(h.hookCalls).toEqual({ CanUpdateMachineSet: 0, UpdateMachine: 0, noopUpdateMachine: 0 });
    await machineDeploymentSettled(h.client, ns, 2);
  });
});
