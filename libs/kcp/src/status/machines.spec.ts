// Upstream controlplane/kubeadm/reconcilers/kubeadmcontrolplane/status_test.go Test_setRollingOutCondition,
// Test_setMachinesReadyAndMachinesUpToDateConditions, Test_setRemediatingCondition and TestDeletingCondition (every
// case).
import type { ConditionInput } from '@capi/api';
import { kcpDeletingCondition } from '../deletion';
import { T0, bareKcp, bareMachine, iso, type Cond } from '../testing/status';
import {
  machinesReadyCondition,
  machinesUpToDateCondition,
  remediatingCondition,
  rollingOutCondition,
} from './machines';

describe('Test_setRollingOutCondition', () => {
  const upToDate: Cond = { type: 'UpToDate', status: 'True', reason: 'UpToDate' };
  it.each<[string, ReturnType<typeof bareMachine>[], ConditionInput]>([
    ['no machines', [], { type: 'RollingOut', status: 'False', reason: 'NotRollingOut' }],
    [
      'all machines are up to date',
      [bareMachine('m1', { conditions: [upToDate] }), bareMachine('m2', { conditions: [upToDate] })],
      { type: 'RollingOut', status: 'False', reason: 'NotRollingOut' },
    ],
    [
      'one up-to-date, two not up-to-date, one reporting up-to-date unknown',
      [
        bareMachine('m1', { conditions: [upToDate] }),
        bareMachine('m2', { conditions: [{ type: 'UpToDate', status: 'Unknown', reason: 'InternalError' }] }),
        bareMachine('m4', {
          conditions: [
            {
              type: 'UpToDate',
              status: 'False',
              reason: 'NotUpToDate',
              message:
                '* Failure domain failure-domain1, failure-domain2 required\n* InfrastructureMachine is not up-to-date',
            },
          ],
        }),
        bareMachine('m3', {
          conditions: [
            {
              type: 'UpToDate',
              status: 'False',
              reason: 'NotUpToDate',
              message: '* Version v1.25.0, v1.26.0 required',
            },
          ],
        }),
      ],
      {
        type: 'RollingOut',
        status: 'True',
        reason: 'RollingOut',
        message:
          'Rolling out 2 not up-to-date replicas\n' +
          '* Version v1.25.0, v1.26.0 required\n' +
          '* Failure domain failure-domain1, failure-domain2 required\n' +
          '* InfrastructureMachine is not up-to-date',
      },
    ],
  ])('%s', (_, machines, want) => {
    expect(rollingOutCondition(machines)).toEqual(want);
  });
});

describe('Test_setMachinesReadyAndMachinesUpToDateConditions', () => {
  const readyTrue: Cond = { type: 'Ready', status: 'True', reason: 'Ready' };
  const readyFalse: Cond = { type: 'Ready', status: 'False', reason: 'NotReady', message: 'NotReady' };
  const upToDateTrue: Cond = { type: 'UpToDate', status: 'True', reason: 'UpToDate' };
  const upToDateFalse: Cond = { type: 'UpToDate', status: 'False', reason: 'NotUpToDate', message: 'NotUpToDate' };

  it('Without machines', () => {
    expect(machinesReadyCondition([])).toEqual({ type: 'MachinesReady', status: 'True', reason: 'NoReplicas' });
    expect(machinesUpToDateCondition([], T0)).toEqual({
      type: 'MachinesUpToDate',
      status: 'True',
      reason: 'NoReplicas',
    });
  });
  it('With machines', () => {
    const machines = [
      bareMachine('m1', { conditions: [readyTrue, upToDateTrue] }),
      bareMachine('m2', { conditions: [readyTrue, upToDateFalse] }),
      bareMachine('m3', { conditions: [readyFalse, upToDateFalse] }),
      // Machine without UpToDate condition.
      bareMachine('m4', { conditions: [readyFalse] }),
      // New Machine without UpToDate condition (should be ignored).
      bareMachine('m5', { conditions: [readyFalse], created: iso(T0 - 5_000) }),
    ];
    expect(machinesReadyCondition(machines)).toEqual({
      type: 'MachinesReady',
      status: 'False',
      reason: 'NotReady',
      message: '* Machines m3, m4, m5: NotReady',
    });
    expect(machinesUpToDateCondition(machines, T0)).toEqual({
      type: 'MachinesUpToDate',
      status: 'False',
      reason: 'NotUpToDate',
      message: '* Machines m2, m3: NotUpToDate\n* Machine m4: Condition UpToDate not yet reported',
    });
  });
  it('all Ready / UpToDate: True with the KCP reasons; only new Machines without UpToDate: NoReplicas', () => {
    const machines = [bareMachine('m1', { conditions: [readyTrue, upToDateTrue] })];
    expect(machinesReadyCondition(machines)).toEqual({ type: 'MachinesReady', status: 'True', reason: 'Ready' });
    expect(machinesUpToDateCondition(machines, T0)).toEqual({
      type: 'MachinesUpToDate',
      status: 'True',
      reason: 'UpToDate',
    });
    const fresh = [bareMachine('m1', { conditions: [readyTrue], created: iso(T0 - 5_000) })];
    expect(machinesUpToDateCondition(fresh, T0).reason).toBe('NoReplicas');
  });
});

describe('Test_setRemediatingCondition', () => {
  const healthCheckSucceeded: Cond = { type: 'HealthCheckSucceeded', status: 'True' };
  const healthCheckNotSucceeded: Cond = { type: 'HealthCheckSucceeded', status: 'False' };
  const ownerRemediated: Cond = {
    type: 'OwnerRemediated',
    status: 'False',
    reason: 'MachineDeleting',
    message: 'Machine is deleting',
  };
  it.each<[string, ReturnType<typeof bareMachine>[], ConditionInput]>([
    [
      'Without unhealthy machines',
      [bareMachine('m1'), bareMachine('m2')],
      { type: 'Remediating', status: 'False', reason: 'NotRemediating' },
    ],
    [
      'With machines to be remediated by KCP',
      [
        bareMachine('m1', { conditions: [healthCheckSucceeded] }),
        bareMachine('m2', { conditions: [healthCheckNotSucceeded] }),
        bareMachine('m3', { conditions: [healthCheckNotSucceeded, ownerRemediated] }),
      ],
      { type: 'Remediating', status: 'True', reason: 'Remediating', message: '* Machine m3: Machine is deleting' },
    ],
    [
      'With one unhealthy machine not to be remediated by KCP',
      [
        bareMachine('m1', { conditions: [healthCheckSucceeded] }),
        bareMachine('m2', { conditions: [healthCheckNotSucceeded] }),
        bareMachine('m3', { conditions: [healthCheckSucceeded] }),
      ],
      {
        type: 'Remediating',
        status: 'False',
        reason: 'NotRemediating',
        message: 'Machine m2 is not healthy (not to be remediated by KubeadmControlPlane)',
      },
    ],
    [
      'With two unhealthy machine not to be remediated by KCP',
      [
        bareMachine('m1', { conditions: [healthCheckNotSucceeded] }),
        bareMachine('m2', { conditions: [healthCheckNotSucceeded] }),
        bareMachine('m3', { conditions: [healthCheckSucceeded] }),
      ],
      {
        type: 'Remediating',
        status: 'False',
        reason: 'NotRemediating',
        message: 'Machines m1, m2 are not healthy (not to be remediated by KubeadmControlPlane)',
      },
    ],
  ])('%s', (_, machines, want) => {
    expect(remediatingCondition(machines)).toEqual(want);
  });
});

describe('TestDeletingCondition', () => {
  it('deletionTimestamp not set', () => {
    expect(kcpDeletingCondition(bareKcp(), undefined)).toEqual({
      type: 'Deleting',
      status: 'False',
      reason: 'NotDeleting',
    });
  });
  it('deletionTimestamp set (waiting for control plane Machine deletion)', () => {
    expect(
      kcpDeletingCondition(bareKcp({ deleting: true }), {
        reason: 'WaitingForMachineDeletion',
        message: 'Deleting 3 Machines',
      }),
    ).toEqual({
      type: 'Deleting',
      status: 'True',
      reason: 'WaitingForMachineDeletion',
      message: 'Deleting 3 Machines',
    });
  });
});
