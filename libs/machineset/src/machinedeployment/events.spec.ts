import type { MachineSet } from '@capi/api';
import { planRollingUpdateSync, type MachineSetLike } from '../rollout';
import { computeDesiredMachineSet } from './desired-ms';
import { machineSetAppliedEvent, machineSetApplyFailedEvent, machineSetDeletedEvent } from './events';
import { machineDeployment, machineSet } from '../testing/fixtures';

const ms = (name: string): MachineSet => ({ ...machineSet(name), metadata: { name, namespace: 'ns' } });

describe('MachineDeployment events (upstream createOrUpdateMachineSetsAndSyncMachineDeploymentRevision)', () => {
  it('a created MachineSet: SuccessfulCreate with namespace/name and its replicas', () => {
    expect(machineSetAppliedEvent(ms('md-1'), true, { originalReplicas: 0, desiredReplicas: 3 })).toEqual({
      type: 'Normal',
      reason: 'SuccessfulCreate',
      message: 'Created MachineSet ns/md-1 with 3 replicas',
    });
  });

  it('scaled up and down: SuccessfulScale with the name only; an unchanged replica count records nothing', () => {
    expect(machineSetAppliedEvent(ms('md-1'), false, { originalReplicas: 1, desiredReplicas: 3 })).toMatchObject({
      reason: 'SuccessfulScale',
      message: 'Scaled up MachineSet md-1: 1 -> 3',
    });
    expect(machineSetAppliedEvent(ms('md-1'), false, { originalReplicas: 3, desiredReplicas: 0 })).toMatchObject({
      reason: 'SuccessfulScale',
      message: 'Scaled down MachineSet md-1: 3 -> 0',
    });
    expect(machineSetAppliedEvent(ms('md-1'), false, { originalReplicas: 2, desiredReplicas: 2 })).toBeUndefined();
  });

  it('failed applies: FailedCreate / FailedUpdate Warnings with the error', () => {
    expect(machineSetApplyFailedEvent(ms('md-1'), true, new Error('boom'))).toEqual({
      type: 'Warning',
      reason: 'FailedCreate',
      message: 'Failed to create MachineSet ns/md-1: boom',
    });
    expect(machineSetApplyFailedEvent(ms('md-1'), false, new Error('boom'))).toEqual({
      type: 'Warning',
      reason: 'FailedUpdate',
      message: 'Failed to update MachineSet ns/md-1: boom',
    });
  });

  it('cleanup (machinedeployment_sync.go cleanupDeployment): SuccessfulDelete / FailedDelete with the quoted name', () => {
    expect(machineSetDeletedEvent(ms('md-1'))).toEqual({
      type: 'Normal',
      reason: 'SuccessfulDelete',
      message: 'Deleted MachineSet "md-1"',
    });
    expect(machineSetDeletedEvent(ms('md-1'), new Error('boom'))).toEqual({
      type: 'Warning',
      reason: 'FailedDelete',
      message: 'Failed to delete MachineSet "md-1": boom',
    });
  });

  it("the plan's diff counts the scale intent, so a new MachineSet is created with the replicas the apply writes", () => {
    const md = machineDeployment({ replicas: 3, version: 'v1.31.0', maxSurge: 1, maxUnavailable: 0 });
    const plan = planRollingUpdateSync(
      { md: md as never, machineSets: [], machines: [] },
      {
        computeDesiredMachineSet: (d, c) =>
          computeDesiredMachineSet(d as never, c as never) as unknown as MachineSetLike,
      },
    );
    const name = plan.newMS!.metadata.name!;
    expect(plan.scaleIntents.get(name)).toBe(3);
    expect(plan.diffs.get(name)).toMatchObject({ hasOriginal: false, originalReplicas: 0, desiredReplicas: 3 });
  });
});
