import {
  DeletePriority,
  deletePriorityFunc,
  machinesToDeletePrioritized,
  UnsupportedDeletionOrderError,
} from './deletion-order';
import { machine, NOW } from '../testing/fixtures';

const names = (ms: { metadata: { name?: string } }[]) => ms.map((m) => m.metadata.name);
const now = () => NOW;

describe('deletion order', () => {
  const old = machine('old', { created: '2025-01-01T00:00:00Z' });
  const mid = machine('mid', { created: '2025-06-01T00:00:00Z' });
  const young = machine('young', { created: '2026-01-09T00:00:00Z' });

  it('Oldest deletes the oldest healthy Machines first', () => {
    expect(names(machinesToDeletePrioritized([young, old, mid], 2, deletePriorityFunc('Oldest', now)))).toEqual([
      'old',
      'mid',
    ]);
  });

  it('Newest deletes the youngest healthy Machines first', () => {
    expect(names(machinesToDeletePrioritized([old, young, mid], 2, deletePriorityFunc('Newest', now)))).toEqual([
      'young',
      'mid',
    ]);
  });

  it('Random (and unset) ties healthy Machines and breaks ties by name', () => {
    for (const order of ['Random', undefined]) {
      expect(names(machinesToDeletePrioritized([young, old, mid], 3, deletePriorityFunc(order, now)))).toEqual([
        'mid',
        'old',
        'young',
      ]);
    }
  });

  it('puts deleting, then delete-annotated, then updating, then unhealthy Machines before age, for every order', () => {
    const deleting = machine('z-deleting', { deleting: true });
    const annotated = machine('y-annotated', { annotations: { 'cluster.x-k8s.io/delete-machine': '' } });
    const updating = machine('x-updating', {
      annotations: { 'in-place-updates.internal.cluster.x-k8s.io/update-in-progress': '' },
    });
    const pendingHook = machine('x2-pending', {
      annotations: { 'runtime.cluster.x-k8s.io/pending-hooks': 'UpdateMachine' },
    });
    const noNode = machine('w-nonode', { nodeRef: false });
    const mhcFailed = machine('v-mhc', { conditions: [{ type: 'HealthCheckSucceeded', status: 'False' }] });
    const nodeUnhealthy = machine('u-node', { conditions: [{ type: 'NodeHealthy', status: 'False' }] });
    const all = [old, mid, young, nodeUnhealthy, mhcFailed, noNode, pendingHook, updating, annotated, deleting];
    for (const order of ['Random', 'Oldest', 'Newest']) {
      const sorted = names(machinesToDeletePrioritized(all, all.length, deletePriorityFunc(order, now)));
      expect(sorted.slice(0, 7)).toEqual([
        'z-deleting',
        'y-annotated',
        'x-updating',
        'x2-pending',
        'u-node',
        'v-mhc',
        'w-nonode',
      ]);
    }
  });

  it('NodeHealthy Unknown does not count as unhealthy', () => {
    const unknown = machine('unknown', { conditions: [{ type: 'NodeHealthy', status: 'Unknown' }] });
    expect(deletePriorityFunc('Random', now)(unknown)).toBe(DeletePriority.couldDelete);
  });

  it('returns nothing for a non-positive count and everything for a count above the size', () => {
    expect(machinesToDeletePrioritized([old], 0, deletePriorityFunc('Random'))).toEqual([]);
    expect(machinesToDeletePrioritized([old, mid], 5, deletePriorityFunc('Random'))).toHaveLength(2);
  });

  it('rejects an unknown order with a clear error', () => {
    expect(() => deletePriorityFunc('Alphabetical')).toThrow(UnsupportedDeletionOrderError);
    expect(() => deletePriorityFunc('Alphabetical')).toThrow(
      "Unsupported deletion order Alphabetical. Must be one of 'Random', 'Newest', or 'Oldest'",
    );
  });
});
