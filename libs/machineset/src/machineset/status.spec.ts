import { getCondition } from '@capi/api';
import { computeMachineSetStatus, isMachineAvailable } from './status';
import { clock, machine, machineSet } from '../testing/fixtures';

const IN_PROGRESS = 'in-place-updates.internal.cluster.x-k8s.io/update-in-progress';

describe('computeMachineSetStatus', () => {
  const ready = [
    { type: 'Ready', status: 'True' as const },
    { type: 'Available', status: 'True' as const },
    { type: 'UpToDate', status: 'True' as const },
  ];
  it('counts replicas, ready, available (updating ones are unavailable) and up-to-date Machines', () => {
    const a = machine('a', { conditions: ready });
    const b = machine('b', { conditions: ready, annotations: { [IN_PROGRESS]: '' } });
    const c = machine('c', {
      conditions: [
        { type: 'Ready', status: 'False', message: 'booting' },
        { type: 'UpToDate', status: 'False', message: 'old' },
      ],
    });
    const s = computeMachineSetStatus(machineSet('ms', { replicas: 3 }), [a, b, c], clock);
    // An updating Machine is neither ready, available nor up to date for the counters (upstream setReplicas).
    expect(s).toMatchObject({
      replicas: 3,
      readyReplicas: 1,
      availableReplicas: 1,
      upToDateReplicas: 1,
      observedGeneration: 1,
    });
    expect(s.selector).toBe('cluster.x-k8s.io/deployment-name=md,machine-template-hash=ms');
    expect(getCondition(s.conditions, 'MachinesReady')).toMatchObject({
      status: 'False',
      reason: 'NotReady',
      message: '* Machine c: booting',
    });
    expect(getCondition(s.conditions, 'MachinesUpToDate')).toMatchObject({ status: 'False', reason: 'NotUpToDate' });
    expect(getCondition(s.conditions, 'ScalingUp')).toMatchObject({ status: 'False', reason: 'NotScalingUp' });
    expect(getCondition(s.conditions, 'ScalingDown')).toMatchObject({ status: 'False', reason: 'NotScalingDown' });
    expect(isMachineAvailable(b)).toBe(false);
  });
  it('reports scaling up (blocked by disable-machine-create) and down', () => {
    const blocked = machineSet('ms', {
      replicas: 2,
      annotations: { 'cluster.x-k8s.io/disable-machine-create': 'true' },
    });
    const up = computeMachineSetStatus(blocked, [], clock);
    expect(getCondition(up.conditions, 'ScalingUp')).toMatchObject({
      status: 'True',
      message:
        'Scaling up from 0 to 2 replicas is blocked because the MachineSet has the disable-machine-create annotation',
    });
    expect(getCondition(up.conditions, 'MachinesReady')).toMatchObject({ status: 'True', reason: 'NoReplicas' });
    const down = computeMachineSetStatus(machineSet('ms', { replicas: 0 }), [machine('a')], clock);
    expect(getCondition(down.conditions, 'ScalingDown')).toMatchObject({
      status: 'True',
      message: 'Scaling down from 1 to 0 replicas',
    });
  });
  it('counts moved Machines pending acknowledgement in replicas but does not report scaling down for them', () => {
    const pendingAck = machine('moved', {
      conditions: ready,
      annotations: { [IN_PROGRESS]: '', 'in-place-updates.internal.cluster.x-k8s.io/pending-acknowledge-move': '' },
    });
    const s = computeMachineSetStatus(
      machineSet('ms', { replicas: 1 }),
      [machine('a', { conditions: ready }), pendingAck],
      clock,
    );
    expect(s).toMatchObject({ replicas: 2, readyReplicas: 1, availableReplicas: 1, upToDateReplicas: 1 });
    expect(getCondition(s.conditions, 'ScalingDown')).toMatchObject({ status: 'False', reason: 'NotScalingDown' });
    expect(getCondition(s.conditions, 'ScalingUp')).toMatchObject({ status: 'False', reason: 'NotScalingUp' });
  });
});
