// Compile-time check (run by tsc) that the real @capi/api kinds are assignable to the planner's structural views,
// plus a runtime check that the annotation keys are the shared constants.
import type { Machine, MachineDeployment, MachineSet } from '@capi/api';
import * as api from '@capi/api';
import { MachineDeploymentLike, MachineLike, MachineSetLike, RolloutAnnotations } from './types';

type Assignable<T, U> = T extends U ? true : false;
const mdOk: Assignable<MachineDeployment, MachineDeploymentLike> = true;
const msOk: Assignable<MachineSet, MachineSetLike> = true;
const mOk: Assignable<Machine, MachineLike> = true;

describe('rollout types', () => {
  it('accept the @capi/api kinds', () => {
    expect([mdOk, msOk, mOk]).toEqual([true, true, true]);
  });

  it('use the annotation keys defined by @capi/api', () => {
    expect(RolloutAnnotations.revision).toBe(api.REVISION_ANNOTATION);
    expect(RolloutAnnotations.moveMachinesToMachineSet).toBe(api.MOVE_MACHINES_TO_MACHINESET_ANNOTATION);
    expect(RolloutAnnotations.receiveMachinesFromMachineSets).toBe(api.RECEIVE_MACHINES_FROM_MACHINESETS_ANNOTATION);
    expect(RolloutAnnotations.acknowledgedMove).toBe(api.ACKNOWLEDGED_MOVE_ANNOTATION);
    expect(RolloutAnnotations.disableMachineCreate).toBe(api.DISABLE_MACHINE_CREATE_ANNOTATION);
    expect(RolloutAnnotations.pendingAcknowledgeMove).toBe(api.PENDING_ACKNOWLEDGE_MOVE_ANNOTATION);
    expect(RolloutAnnotations.updateInProgress).toBe(api.UPDATE_IN_PROGRESS_ANNOTATION);
  });
});
