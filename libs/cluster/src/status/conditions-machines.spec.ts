// Upstream cluster_controller_status_test.go: TestSetWorkersAvailableCondition (MachinePool mp1 dropped from its
// cases, with its message line), TestSetControlPlaneMachinesReadyCondition, TestSetWorkerMachinesReadyCondition,
// TestSetControlPlaneMachinesUpToDateCondition, TestSetWorkerMachinesUpToDateCondition, TestSetRemediatingCondition.
import { isFalse, type ConditionInput, type Machine, type MachineDeployment } from '@capi/api';
import {
  controlPlaneMachinesConditions,
  remediatingCondition,
  workerMachinesConditions,
  workersAvailableCondition,
} from './conditions-machines';
import { fakeMachine, fakeMachineDeployment, type C } from '../testing/status-fakes';

const LOGS = 'Please check controller logs for errors';

describe('workersAvailableCondition (upstream TestSetWorkersAvailableCondition)', () => {
  const type = 'WorkersAvailable';
  it.each<[string, MachineDeployment[], boolean, ConditionInput]>([
    [
      'unknown if failed to get descendants',
      [],
      false,
      { type, status: 'Unknown', reason: 'InternalError', message: LOGS },
    ],
    ['true if no descendants', [], true, { type, status: 'True', reason: 'NoWorkers' }],
    [
      'descendants do not report available',
      [fakeMachineDeployment('md1')],
      true,
      {
        type,
        status: 'Unknown',
        reason: 'AvailableUnknown',
        message: '* MachineDeployment md1: Condition Available not yet reported',
      },
    ],
    [
      'descendants report available',
      [
        fakeMachineDeployment('md1', {
          conditions: [
            {
              type: 'Available',
              status: 'False',
              reason: 'Foo',
              message:
                '3 available replicas, at least 4 required (spec.strategy.rollout.maxUnavailable is 1, spec.replicas is 5)',
            },
          ],
        }),
      ],
      true,
      {
        type,
        status: 'False',
        reason: 'NotAvailable',
        message:
          '* MachineDeployment md1: 3 available replicas, at least 4 required (spec.strategy.rollout.maxUnavailable is 1, spec.replicas is 5)',
      },
    ],
  ])('%s', (_name, mds, ok, want) => {
    expect(workersAvailableCondition(mds, ok)).toEqual(want);
  });
});

const ready: C = { type: 'Ready', status: 'True', reason: 'Ready' };

describe.each([
  ['ControlPlaneMachinesReady', 'TestSetControlPlaneMachinesReadyCondition', true, controlPlaneMachinesConditions],
  ['WorkerMachinesReady', 'TestSetWorkerMachinesReadyCondition', false, workerMachinesConditions],
])('%s (upstream %s)', (type, _test, controlPlane, fn) => {
  const m = (name: string, ...conditions: C[]) => fakeMachine(name, { controlPlane, conditions });
  it.each<[string, Machine[], boolean, ConditionInput]>([
    ['get descendant failed', [], false, { type, status: 'Unknown', reason: 'InternalError', message: LOGS }],
    ['no machines', [], true, { type, status: 'True', reason: 'NoReplicas' }],
    [
      'all machines are ready',
      [m('machine-1', ready), m('machine-2', ready)],
      true,
      { type, status: 'True', reason: 'Ready', message: '' },
    ],
    [
      'one ready, one has nothing reported',
      [m('machine-1', ready), m('machine-2')],
      true,
      {
        type,
        status: 'Unknown',
        reason: 'ReadyUnknown',
        message: '* Machine machine-2: Condition Ready not yet reported',
      },
    ],
    [
      'one ready, one reporting not ready, one reporting unknown, one reporting deleting',
      [
        m('machine-1', ready),
        m('machine-2', {
          type: 'Ready',
          status: 'False',
          reason: 'SomeReason',
          message: 'HealthCheckSucceeded: Some message',
        }),
        m('machine-3', {
          type: 'Ready',
          status: 'Unknown',
          reason: 'SomeUnknownReason',
          message: 'Some unknown message',
        }),
        m('machine-4', {
          type: 'Ready',
          status: 'False',
          reason: 'Deleting',
          message: 'Deleting: Machine deletion in progress, stage: DrainingNode',
        }),
      ],
      true,
      {
        type,
        status: 'False',
        reason: 'NotReady',
        message:
          '* Machine machine-2: HealthCheckSucceeded: Some message\n' +
          '* Machine machine-4: Deleting: Machine deletion in progress, stage: DrainingNode\n' +
          '* Machine machine-3: Some unknown message',
      },
    ],
  ])('%s', (_name, machines, ok, want) => {
    expect(fn(machines, ok, Date.now())[0]).toEqual(want);
  });
});

describe.each([
  [
    'ControlPlaneMachinesUpToDate',
    'TestSetControlPlaneMachinesUpToDateCondition',
    true,
    controlPlaneMachinesConditions,
  ],
  ['WorkerMachinesUpToDate', 'TestSetWorkerMachinesUpToDateCondition', false, workerMachinesConditions],
])('%s (upstream %s)', (type, _test, controlPlane, fn) => {
  const now = Date.parse('2026-03-01T10:00:00Z');
  const m = (name: string, c?: C, creationTimestamp?: string) =>
    fakeMachine(name, { controlPlane, conditions: c ? [c] : [], creationTimestamp });
  const notUpToDate: C = {
    type: 'UpToDate',
    status: 'False',
    reason: 'TestNotUpToDate',
    message: 'This is not up-to-date message',
  };
  it.each<[string, Machine[], boolean, ConditionInput]>([
    ['get descendant failed', [], false, { type, status: 'Unknown', reason: 'InternalError', message: LOGS }],
    ['no machines', [], true, { type, status: 'True', reason: 'NoReplicas' }],
    [
      'One machine up-to-date',
      [m('up-to-date-1', { type: 'UpToDate', status: 'True', reason: 'some-reason-1' })],
      true,
      { type, status: 'True', reason: 'UpToDate', message: '' },
    ],
    [
      'One machine unknown',
      [
        m('unknown-1', {
          type: 'UpToDate',
          status: 'Unknown',
          reason: 'some-unknown-reason-1',
          message: 'some unknown message',
        }),
      ],
      true,
      { type, status: 'Unknown', reason: 'UpToDateUnknown', message: '* Machine unknown-1: some unknown message' },
    ],
    [
      'One machine not up-to-date',
      [
        m('not-up-to-date-machine-1', {
          type: 'UpToDate',
          status: 'False',
          reason: 'some-not-up-to-date-reason',
          message: 'some not up-to-date message',
        }),
      ],
      true,
      {
        type,
        status: 'False',
        reason: 'NotUpToDate',
        message: '* Machine not-up-to-date-machine-1: some not up-to-date message',
      },
    ],
    [
      'One machine without up-to-date condition, one new Machines without up-to-date condition',
      // the second is ignored because it is new (5 s old)
      [m('no-condition-machine-1'), m('no-condition-machine-2-new', undefined, new Date(now - 5000).toISOString())],
      true,
      {
        type,
        status: 'Unknown',
        reason: 'UpToDateUnknown',
        message: '* Machine no-condition-machine-1: Condition UpToDate not yet reported',
      },
    ],
    [
      'Two machines not up-to-date, two up-to-date, two not reported',
      [
        m('up-to-date-1', { type: 'UpToDate', status: 'True', reason: 'TestUpToDate' }),
        m('up-to-date-2', { type: 'UpToDate', status: 'True', reason: 'TestUpToDate' }),
        m('not-up-to-date-machine-1', notUpToDate),
        m('not-up-to-date-machine-2', notUpToDate),
        m('no-condition-machine-1'),
        m('no-condition-machine-2'),
      ],
      true,
      {
        type,
        status: 'False',
        reason: 'NotUpToDate',
        message:
          '* Machines not-up-to-date-machine-1, not-up-to-date-machine-2: This is not up-to-date message\n' +
          '* Machines no-condition-machine-1, no-condition-machine-2: Condition UpToDate not yet reported',
      },
    ],
  ])('%s', (_name, machines, ok, want) => {
    expect(fn(machines, ok, now)[1]).toEqual(want);
  });
});

describe('remediatingCondition (upstream TestSetRemediatingCondition)', () => {
  const type = 'Remediating';
  const healthCheckSucceeded: C = { type: 'HealthCheckSucceeded', status: 'True' };
  const healthCheckNotSucceeded: C = { type: 'HealthCheckSucceeded', status: 'False' };
  const ownerRemediated: C = {
    type: 'OwnerRemediated',
    status: 'False',
    reason: 'MachineDeleting',
    message: 'Machine is deleting',
  };
  const m = (name: string, ...conditions: C[]) => fakeMachine(name, { conditions });
  it.each<[string, Machine[], boolean, ConditionInput]>([
    ['get descendant failed', [], false, { type, status: 'Unknown', reason: 'InternalError', message: LOGS }],
    ['Without unhealthy machines', [m('m1'), m('m2')], true, { type, status: 'False', reason: 'NotRemediating' }],
    [
      'With machines to be remediated',
      [
        m('m1', healthCheckSucceeded),
        m('m2', healthCheckNotSucceeded),
        m('m3', healthCheckNotSucceeded, ownerRemediated),
      ],
      true,
      { type, status: 'True', reason: 'Remediating', message: '* Machine m3: Machine is deleting' },
    ],
    [
      'With one unhealthy machine not to be remediated',
      [m('m1', healthCheckSucceeded), m('m2', healthCheckNotSucceeded), m('m3', healthCheckSucceeded)],
      true,
      { type, status: 'False', reason: 'NotRemediating', message: 'Machine m2 is not healthy (not to be remediated)' },
    ],
    [
      'With two unhealthy machine not to be remediated',
      [m('m1', healthCheckNotSucceeded), m('m2', healthCheckNotSucceeded), m('m3', healthCheckSucceeded)],
      true,
      {
        type,
        status: 'False',
        reason: 'NotRemediating',
        message: 'Machines m1, m2 are not healthy (not to be remediated)',
      },
    ],
  ])('%s', (_name, machines, ok, want) => {
    // As upstream's test: collections.IsUnhealthyAndOwnerRemediated and collections.IsUnhealthy.
    const unhealthy = ok ? machines.filter((x) => isFalse(x, 'HealthCheckSucceeded')) : [];
    const toBeRemediated = unhealthy.filter((x) => isFalse(x, 'OwnerRemediated'));
    expect(remediatingCondition(toBeRemediated, unhealthy, ok)).toEqual(want);
  });
  it('more than three unhealthy Machines are listed as "... (n more)"', () => {
    const unhealthy = ['m5', 'm1', 'm4', 'm2', 'm3'].map((n) => m(n, healthCheckNotSucceeded));
    expect(remediatingCondition([], unhealthy, true).message).toBe(
      'Machines m1, m2, m3, ... (2 more) are not healthy (not to be remediated)',
    );
  });
});
