import { getCondition } from '@capi/api';
import { computeMachineDeploymentStatus } from './status';
import { clock, machine, machineDeployment, machineSet } from '../testing/fixtures';

describe('computeMachineDeploymentStatus', () => {
  const withStatus = (
    name: string,
    s: { replicas: number; readyReplicas: number; availableReplicas: number; upToDateReplicas: number },
  ) => ({ ...machineSet(name), status: s });

  it('sums MachineSet counters and reports availability against maxUnavailable', () => {
    const md = machineDeployment({ replicas: 3, maxUnavailable: 1 });
    const s = computeMachineDeploymentStatus(
      {
        md,
        machineSets: [
          withStatus('a', { replicas: 2, readyReplicas: 2, availableReplicas: 1, upToDateReplicas: 0 }),
          withStatus('b', { replicas: 1, readyReplicas: 1, availableReplicas: 1, upToDateReplicas: 1 }),
        ],
        machines: [],
      },
      clock,
    );
    expect(s).toMatchObject({
      replicas: 3,
      readyReplicas: 3,
      availableReplicas: 2,
      upToDateReplicas: 1,
      phase: 'Running',
      observedGeneration: 2,
    });
    expect(getCondition(s.conditions, 'Available')).toMatchObject({ status: 'True' });
    expect(getCondition(s.conditions, 'RollingOut')).toMatchObject({
      status: 'True',
      message: 'Rolling out 2 not up-to-date replicas',
    });
  });

  it('is not available below the minimum and aggregates Machine UpToDate', () => {
    const md = machineDeployment({ replicas: 3, maxUnavailable: 0 });
    const m = machine('m1', {
      conditions: [{ type: 'UpToDate', status: 'False', reason: 'Updating', message: '* In-place update in progress' }],
    });
    const s = computeMachineDeploymentStatus(
      {
        md,
        machineSets: [withStatus('a', { replicas: 3, readyReplicas: 3, availableReplicas: 2, upToDateReplicas: 2 })],
        machines: [m],
      },
      clock,
    );
    expect(getCondition(s.conditions, 'Available')).toMatchObject({
      status: 'False',
      reason: 'NotAvailable',
      message: '2 available replicas, at least 3 required',
    });
    expect(getCondition(s.conditions, 'MachinesUpToDate')).toMatchObject({
      status: 'False',
      reason: 'NotUpToDate',
      message: '* Machine m1: * In-place update in progress',
    });
  });

  it('surfaces a reconcile error (e.g. a failing CanUpdateMachineSet extension) on RollingOut', () => {
    const s = computeMachineDeploymentStatus(
      {
        md: machineDeployment(),
        machineSets: [],
        machines: [],
        error: { reason: 'Failure', message: 'extension failed' },
      },
      clock,
    );
    expect(getCondition(s.conditions, 'RollingOut')).toMatchObject({
      status: 'Unknown',
      reason: 'Failure',
      message: 'extension failed',
    });
    expect(getCondition(s.conditions, 'ScalingUp')).toMatchObject({
      status: 'True',
      message: 'Scaling up from 0 to 3 replicas',
    });
  });
});
