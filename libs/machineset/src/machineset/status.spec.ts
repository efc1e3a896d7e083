import { getCondition } from '@capi/api';
import { computeMachineSetStatus, isMachineAvailable, machineUpToDateCondition } from './status';
import { clock, machine, machineDeployment, machineSet, NOW } from '../testing/fixtures';

const IN_PROGRESS = 'in-place-updates.internal.cluster.x-k8s.io/update-in-progress';

describe('machineUpToDateCondition', () => {
  const ms = machineSet('md-a', { version: 'v1.30.0' });
  it('is not written for stand-alone MachineSets', () => {
    expect(machineUpToDateCondition(ms, undefined, machine('m'), NOW)).toBeUndefined();
  });
  it('is True/UpToDate when the MS template matches the MD', () => {
    expect(machineUpToDateCondition(ms, machineDeployment({ version: 'v1.30.0' }), machine('m'), NOW)).toEqual({ type: 'UpToDate', status: 'True', reason: 'UpToDate' });
  });
  it('is False/NotUpToDate with the differences when the MD template changed', () => {
    const c = machineUpToDateCondition(ms, machineDeployment({ version: 'v1.31.0' }), machine('m'), NOW)!;
    expect(c).toMatchObject({ status: 'False', reason: 'NotUpToDate' });
    expect(c.message).toBe('* spec.version v1.30.0, v1.31.0 required');
  });
  it('is False/Updating while an in-place update is in progress, even if the spec already matches', () => {
    const m = machine('m', { annotations: { [IN_PROGRESS]: '' } });
    expect(machineUpToDateCondition(ms, machineDeployment({ version: 'v1.30.0' }), m, NOW)).toMatchObject({ status: 'False', reason: 'Updating' });
    const pending = machine('p', { annotations: { 'runtime.cluster.x-k8s.io/pending-hooks': 'UpdateMachine' } });
    expect(machineUpToDateCondition(ms, machineDeployment(), pending, NOW)).toMatchObject({ status: 'False', reason: 'Updating' });
  });
  it('is False once rolloutAfter expired for an MS created before it', () => {
    const c = machineUpToDateCondition(ms, machineDeployment({ rolloutAfter: '2026-01-05T00:00:00Z' }), machine('m'), NOW)!;
    expect(c).toMatchObject({ status: 'False', reason: 'NotUpToDate', message: '* MachineDeployment spec.rolloutAfter expired' });
    const later = machineSet('md-b', { created: '2026-01-06T00:00:00Z' });
    expect(machineUpToDateCondition(later, machineDeployment({ rolloutAfter: '2026-01-05T00:00:00Z' }), machine('m'), NOW)!.status).toBe('True');
  });
});

describe('computeMachineSetStatus', () => {
  const ready = [{ type: 'Ready', status: 'True' as const }, { type: 'Available', status: 'True' as const }, { type: 'UpToDate', status: 'True' as const }];
  it('counts replicas, ready, available (updating ones are unavailable) and up-to-date Machines', () => {
    const a = machine('a', { conditions: ready });
    const b = machine('b', { conditions: ready, annotations: { [IN_PROGRESS]: '' } });
    const c = machine('c', { conditions: [{ type: 'Ready', status: 'False', message: 'booting' }, { type: 'UpToDate', status: 'False', message: 'old' }] });
    const s = computeMachineSetStatus(machineSet('ms', { replicas: 3 }), [a, b, c], clock);
    // An updating Machine is neither ready, available nor up to date for the counters (upstream setReplicas).
    expect(s).toMatchObject({ replicas: 3, readyReplicas: 1, availableReplicas: 1, upToDateReplicas: 1, observedGeneration: 1 });
    expect(s.selector).toBe('cluster.x-k8s.io/deployment-name=md,machine-template-hash=ms');
    expect(getCondition(s.conditions, 'MachinesReady')).toMatchObject({ status: 'False', reason: 'NotReady', message: '* Machine c: booting' });
    expect(getCondition(s.conditions, 'MachinesUpToDate')).toMatchObject({ status: 'False', reason: 'NotUpToDate' });
    expect(getCondition(s.conditions, 'ScalingUp')).toMatchObject({ status: 'False', reason: 'NotScalingUp' });
    expect(getCondition(s.conditions, 'ScalingDown')).toMatchObject({ status: 'False', reason: 'NotScalingDown' });
    expect(isMachineAvailable(b)).toBe(false);
  });
  it('reports scaling up (blocked by disable-machine-create) and down', () => {
    const blocked = machineSet('ms', { replicas: 2, annotations: { 'cluster.x-k8s.io/disable-machine-create': 'true' } });
    const up = computeMachineSetStatus(blocked, [], clock);
    expect(getCondition(up.conditions, 'ScalingUp')).toMatchObject({
      status: 'True',
      message: 'Scaling up from 0 to 2 replicas is blocked because the MachineSet has the disable-machine-create annotation',
    });
    expect(getCondition(up.conditions, 'MachinesReady')).toMatchObject({ status: 'True', reason: 'NoReplicas' });
    const down = computeMachineSetStatus(machineSet('ms', { replicas: 0 }), [machine('a')], clock);
    expect(getCondition(down.conditions, 'ScalingDown')).toMatchObject({ status: 'True', message: 'Scaling down from 1 to 0 replicas' });
  });
  it('counts moved Machines pending acknowledgement in replicas but does not report scaling down for them', () => {
    const pendingAck = machine('moved', { conditions: ready, annotations: { [IN_PROGRESS]: '', 'in-place-updates.internal.cluster.x-k8s.io/pending-acknowledge-move': '' } });
    const s = computeMachineSetStatus(machineSet('ms', { replicas: 1 }), [machine('a', { conditions: ready }), pendingAck], clock);
    expect(s).toMatchObject({ replicas: 2, readyReplicas: 1, availableReplicas: 1, upToDateReplicas: 1 });
    expect(getCondition(s.conditions, 'ScalingDown')).toMatchObject({ status: 'False', reason: 'NotScalingDown' });
    expect(getCondition(s.conditions, 'ScalingUp')).toMatchObject({ status: 'False', reason: 'NotScalingUp' });
  });
});
