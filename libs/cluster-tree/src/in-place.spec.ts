import type { Condition, Machine } from '@capi/api';
import { describeUpdaters, machineInPlaceState } from './in-place';

const machine = (annotations: Record<string, string>, conditions: Condition[] = []) =>
  ({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Machine',
    metadata: { name: 'm', annotations },
    spec: {},
    status: { conditions },
  }) as unknown as Machine;
const UPDATING: Condition = {
  type: 'Updating',
  status: 'True',
  reason: 'InPlaceUpdating',
  message: 'Updating',
  lastTransitionTime: '2026-01-01T00:00:00Z',
};

describe('machineInPlaceState', () => {
  it('is undefined for a Machine with nothing in-place recorded', () => {
    expect(machineInPlaceState(machine({}, [{ ...UPDATING, status: 'False', reason: 'NotUpdating' }]))).toBeUndefined();
  });

  it('reads pending hooks, the recorded updaters and since when from the annotations and the Updating condition', () => {
    const state = machineInPlaceState(
      machine(
        {
          'in-place-updates.internal.cluster.x-k8s.io/update-in-progress': '',
          'runtime.cluster.x-k8s.io/pending-hooks': 'UpdateMachine',
          'in-place-updates.capi-inplace.io/updaters': 'b-updater,a-updater',
        },
        [UPDATING],
      ),
    );
    expect(state).toEqual({
      updating: true,
      pendingHooks: ['UpdateMachine'],
      updaters: ['a-updater', 'b-updater'],
      updatersRecorded: true,
      since: '2026-01-01T00:00:00Z',
      reason: 'InPlaceUpdating',
      message: 'Updating',
    });
    expect(describeUpdaters(state!)).toBe('a-updater, b-updater');
  });

  it('says so when no updater is recorded (every registered UpdateMachine handler is called) and since is not known yet', () => {
    const state = machineInPlaceState(machine({ 'runtime.cluster.x-k8s.io/pending-hooks': 'UpdateMachine' }));
    expect(state).toMatchObject({ updating: true, updatersRecorded: false, updaters: [] });
    expect(state?.since).toBeUndefined();
    expect(describeUpdaters(state!)).toBe('all registered (none recorded)');
  });

  it('reports pending hooks other than UpdateMachine without calling the Machine updating', () => {
    expect(machineInPlaceState(machine({ 'runtime.cluster.x-k8s.io/pending-hooks': 'Other' }))).toMatchObject({
      updating: false,
      pendingHooks: ['Other'],
    });
  });
});
