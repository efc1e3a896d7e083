import { deletingMachineSyncPatch } from './deleting-sync';
import { machine, machineSet } from '../testing/fixtures';

// Upstream TestMachineSetReconciler_syncMachines (core/reconcilers/machineset/machineset_controller_test.go): a deleting
// Machine gets only the fields that matter for tearing it down.
describe('deletingMachineSyncPatch', () => {
  const ms = machineSet('ms');
  ms.spec.template.spec = {
    ...ms.spec.template.spec,
    readinessGates: [{ conditionType: 'foo' }],
    minReadySeconds: 7,
    taints: [{ key: 'k', value: 'v', effect: 'NoSchedule', propagation: 'Always' }],
    deletion: { nodeDrainTimeoutSeconds: 10, nodeVolumeDetachTimeoutSeconds: 10, nodeDeletionTimeoutSeconds: 10 },
  };

  it('sets the timeouts, minReadySeconds, readiness gates and taints of the template on a deleting Machine', () => {
    const m = machine('m1', { deleting: true });
    expect(deletingMachineSyncPatch(ms, m)).toEqual({
      spec: {
        readinessGates: [{ conditionType: 'foo' }],
        minReadySeconds: 7,
        taints: [{ key: 'k', value: 'v', effect: 'NoSchedule', propagation: 'Always' }],
        deletion: { nodeDrainTimeoutSeconds: 10, nodeVolumeDetachTimeoutSeconds: 10, nodeDeletionTimeoutSeconds: 10 },
      },
    });
  });

  it('is undefined when the deleting Machine has them already (no request)', () => {
    const m = machine('m1', { deleting: true });
    m.spec = { ...m.spec, ...structuredClone(ms.spec.template.spec), version: 'v1.29.0' };
    expect(deletingMachineSyncPatch(ms, m)).toBeUndefined();
  });

  it('removes what the template no longer sets, defaulting nodeDeletionTimeoutSeconds to 10 s as the webhook does', () => {
    const bare = machineSet('ms');
    const m = machine('m1', { deleting: true });
    m.spec = {
      ...m.spec,
      minReadySeconds: 3,
      readinessGates: [{ conditionType: 'bar' }],
      deletion: { nodeDrainTimeoutSeconds: 5, nodeDeletionTimeoutSeconds: 20 },
    };
    expect(deletingMachineSyncPatch(bare, m)).toEqual({
      spec: {
        readinessGates: null,
        minReadySeconds: null,
        deletion: { nodeDrainTimeoutSeconds: null, nodeDeletionTimeoutSeconds: 10 },
      },
    });
    m.spec.deletion = { nodeDeletionTimeoutSeconds: 10 };
    delete m.spec.minReadySeconds;
    delete m.spec.readinessGates;
    expect(deletingMachineSyncPatch(bare, m)).toBeUndefined();
  });

  it('never touches other fields (version, labels) of a deleting Machine', () => {
    const m = machine('m1', { deleting: true, version: 'v1.29.0', labels: { a: 'b' } });
    const patch = deletingMachineSyncPatch(ms, m) as { spec: Record<string, unknown>; metadata?: unknown };
    expect(Object.keys(patch)).toEqual(['spec']);
    expect(Object.keys(patch.spec).sort()).toEqual(['deletion', 'minReadySeconds', 'readinessGates', 'taints']);
  });
});
