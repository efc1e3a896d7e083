// Composed updaters through a MachineDeployment (this project's extension of upstream's one-updater rule): only the
// updaters whose CanUpdateMachineSet patches made up the accepted change get UpdateMachine for the moved Machines.
import { CLUSTER_API_VERSION, type Machine, type MachineSet } from '@capi/api';
import { IN_PLACE_UPDATERS_ANNOTATION } from '@capi/inplace';
import {
  conditionStatus,
  createDeployment,
  describeNamespace,
  eventually,
  machinesOf,
  startHarness,
  type Harness,
} from './support/harness';

jest.setTimeout(90_000);

describe('MachineDeployment in-place rollout with two updaters, one contributing', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ inPlaceUpdates: true, noopUpdater: true });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('records the contributing updater on the moving MachineSet and its Machines; UpdateMachine goes to it only', async () => {
    const ns = 'composed';
    await createDeployment(h.client, ns, { replicas: 2, version: 'v1.30.0', maxSurge: 0, maxUnavailable: 1 });
    const settled = (version: string) => async () => {
      const ms = await machinesOf(h.client, ns);
      return (
        ms.length === 2 &&
        ms.every(
          (m) =>
            m.spec.version === version &&
            conditionStatus(m, 'Available') === 'True' &&
            conditionStatus(m, 'UpToDate') === 'True',
        ) &&
        ms
      );
    };
    const before = await eventually(settled('v1.30.0'), 'two Machines at v1.30.0');

    const seenOnMachines = new Set<string>();
    const seenOnMachineSets = new Set<string>();
    const machineWatch = await h.client.watch<Machine>(CLUSTER_API_VERSION, 'Machine', { namespace: ns }, (ev) => {
      const v = ev.object.metadata.annotations?.[IN_PLACE_UPDATERS_ANNOTATION];
      if (v !== undefined) seenOnMachines.add(v);
    });
    const msWatch = await h.client.watch<MachineSet>(CLUSTER_API_VERSION, 'MachineSet', { namespace: ns }, (ev) => {
      const v = ev.object.metadata.annotations?.[IN_PLACE_UPDATERS_ANNOTATION];
      if (v !== undefined) seenOnMachineSets.add(v);
    });
    await h.client.patch(
      { apiVersion: CLUSTER_API_VERSION, kind: 'MachineDeployment', namespace: ns, name: 'md' },
      'merge',
      { spec: { template: { spec: { version: 'v1.31.0' } } } },
    );
    let after: Machine[];
    try {
      after = await eventually(settled('v1.31.0'), 'two Machines at v1.31.0', 60_000);
    } catch (e) {
      (e as Error).message += `\n${await describeNamespace(h.client, ns)}`;
      throw e;
    } finally {
      machineWatch.stop();
      msWatch.stop();
    }

    expect(after.map((m) => m.metadata.uid).sort()).toEqual(before.map((m) => m.metadata.uid).sort());
    expect([...seenOnMachineSets]).toEqual(['in-place']);
    expect([...seenOnMachines]).toEqual(['in-place']);
    expect(h.hookCalls.UpdateMachine).toBeGreaterThanOrEqual(2);
    expect(h.hookCalls.noopUpdateMachine).toBe(0);
    // Removed with the other markers once the update completed.
    for (const m of after) expect(m.metadata.annotations?.[IN_PLACE_UPDATERS_ANNOTATION]).toBeUndefined();
  });
});
