// In-place rollouts with an updater that takes a few seconds: a second MachineDeployment spec change while Machines
// are updating (golden "change spec": the previous new MachineSet becomes an old one, its updating Machines finish,
// then move on, none is deleted), and a wide rollout where many Machines move at once (none created).
import { CLUSTER_API_VERSION, isUpdateInProgress, type Machine, type MachineSet } from '@capi/api';
import {
  conditionStatus,
  createDeployment,
  describeNamespace,
  eventually,
  machinesOf,
  startHarness,
  type Harness,
} from './support/harness';
import { watchHistory } from './support/history';

jest.setTimeout(120_000);

describe('second spec change during an in-place rollout', () => {
  let h: Harness;
  beforeAll(async () => {
    // Updates take a few seconds, so the second change lands while one is in progress.
    h = await startHarness({ inPlaceUpdates: true, updateDurationSeconds: 3 });
  });
  afterAll(async () => {
    await h?.close();
  });

  const ready = (ns: string, version: string) =>
    eventually(
      async () => {
        const ms = await machinesOf(h.client, ns);
        const ok =
          ms.length === 3 &&
          ms.every(
            (m) =>
              !m.metadata.deletionTimestamp &&
              m.spec.version === version &&
              conditionStatus(m, 'Available') === 'True' &&
              !isUpdateInProgress(m),
          );
        return ok && ms;
      },
      `3 available Machines at ${version} in ${ns}`,
      90_000,
    );
  const identity = (ms: Machine[]) => ms.map((m) => `${m.metadata.name}/${m.metadata.uid}`).sort();

  it('never deletes a Machine updating in place; all end at the last spec with their identity', async () => {
    const ns = 'respec';
    await createDeployment(h.client, ns, { replicas: 3, version: 'v1.30.0', maxSurge: 0, maxUnavailable: 1 });
    const before = await ready(ns, 'v1.30.0');
    const deleted: string[] = [];
    const watch = await h.client.watch<Machine>(CLUSTER_API_VERSION, 'Machine', { namespace: ns }, (ev) => {
      if (ev.type === 'DELETED' || ev.object.metadata.deletionTimestamp) {
        // Name, owner and markers when it was deleted: says which MachineSet deleted it and in which state.
        const by = ev.object.metadata.ownerReferences?.find((r) => r.controller)?.name;
        deleted.push(
          `${ev.object.metadata.name} owner=${by} annotations=${JSON.stringify(ev.object.metadata.annotations ?? {})}`,
        );
      }
    });
    const history = await watchHistory(h.client, ns);
    const md = { apiVersion: CLUSTER_API_VERSION, kind: 'MachineDeployment', namespace: ns, name: 'md' };
    await h.client.patch(md, 'merge', { spec: { template: { spec: { version: 'v1.31.0' } } } });
    const updating = await eventually(
      async () =>
        (await machinesOf(h.client, ns)).find(
          (m) => m.metadata.annotations?.['runtime.cluster.x-k8s.io/pending-hooks'] === 'UpdateMachine',
        ),
      'a Machine updating to v1.31.0',
    );
    // Its MachineSet's status must count it before the spec changes again: the planner gives an old MachineSet the
    // move annotation only when its status.replicas > 0 (upstream reconcileInPlaceUpdateIntent), so with a stale 0 it
    // would scale it down without one and the MachineSet would delete the updating Machine.
    const owner = updating.metadata.ownerReferences!.find((r) => r.controller)!.name;
    await eventually(
      async () =>
        ((
          await h.client.get<MachineSet>({
            apiVersion: CLUSTER_API_VERSION,
            kind: 'MachineSet',
            namespace: ns,
            name: owner,
          })
        ).status?.replicas ?? 0) >= 1,
      `${owner} status counts the updating Machine`,
    );
    // Likewise every MachineSet's status: the planner reads status.replicas of each old MachineSet, and one lagging
    // behind its Machines (a busy API server) would be scaled down without the move annotation.
    await eventually(async () => {
      const [sets, machines] = await Promise.all([
        h.client.list<MachineSet>(CLUSTER_API_VERSION, 'MachineSet', { namespace: ns }),
        machinesOf(h.client, ns),
      ]);
      const owned = (ms: MachineSet) =>
        machines.filter((m) => m.metadata.ownerReferences?.some((r) => r.controller && r.uid === ms.metadata.uid))
          .length;
      return sets.items.every((ms) => (ms.status?.replicas ?? 0) === owned(ms));
    }, 'every MachineSet status counts its Machines');
    await h.client.patch(md, 'merge', { spec: { template: { spec: { version: 'v1.32.0' } } } });
    try {
      const after = await ready(ns, 'v1.32.0');
      expect(deleted).toEqual([]);
      expect(identity(after)).toEqual(identity(before));
    } catch (e) {
      (e as Error).message += `\n${await describeNamespace(h.client, ns)}\nhistory:\n${history.lines().join('\n')}`;
      throw e;
    } finally {
      watch.stop();
      history.stop();
    }
  });

  it('creates no Machine during a wide in-place rollout (moved Machines counted once, by their new MachineSet)', async () => {
    const ns = 'wide';
    await createDeployment(h.client, ns, { replicas: 12, version: 'v1.30.0', maxSurge: 0, maxUnavailable: 6 });
    const before = await eventually(
      async () => {
        const ms = await machinesOf(h.client, ns);
        return ms.length === 12 && ms.every((m) => conditionStatus(m, 'Available') === 'True') && ms;
      },
      '12 available Machines',
      90_000,
    );
    const seen = new Set<string>();
    const watch = await h.client.watch<Machine>(CLUSTER_API_VERSION, 'Machine', { namespace: ns }, (ev) =>
      seen.add(ev.object.metadata.uid ?? ''),
    );
    const history = await watchHistory(h.client, ns);
    await h.client.patch(
      { apiVersion: CLUSTER_API_VERSION, kind: 'MachineDeployment', namespace: ns, name: 'md' },
      'merge',
      { spec: { template: { spec: { version: 'v1.31.0' } } } },
    );
    try {
      const after = await eventually(
        async () => {
          const ms = await machinesOf(h.client, ns);
          return (
            ms.length === 12 &&
            ms.every(
              (m) =>
                m.spec.version === 'v1.31.0' && conditionStatus(m, 'Available') === 'True' && !isUpdateInProgress(m),
            ) &&
            ms
          );
        },
        '12 Machines at v1.31.0',
        90_000,
      );
      expect([...seen].sort()).toEqual(before.map((m) => m.metadata.uid).sort());
      expect(identity(after)).toEqual(identity(before));
    } catch (e) {
      (e as Error).message += `\nhistory:\n${history.lines().join('\n')}`;
      throw e;
    } finally {
      watch.stop();
      history.stop();
    }
  });
});
