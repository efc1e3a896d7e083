import type { Condition } from '@capi/api';
import { upToDateCondition, type UpToDateOwners } from './uptodate';
import type { MachineObject } from './types';

const NOW = new Date('2026-01-10T00:00:00Z');
const hoursFromNow = (h: number) => new Date(NOW.getTime() + h * 3_600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
const template = (version: string) => ({
  spec: {
    clusterName: 'c',
    version,
    infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'TestMachineTemplate', name: 't' },
  },
});
const ms = (version: string, created?: string) => ({
  metadata: { name: 'ms', ...(created ? { creationTimestamp: created } : {}) },
  spec: { clusterName: 'c', selector: {}, template: template(version) },
});
const md = (version: string, rolloutAfter?: string) => ({
  spec: {
    clusterName: 'c',
    selector: {},
    template: template(version),
    ...(rolloutAfter ? { rollout: { after: rolloutAfter } } : {}),
  },
});
const owners = (o: { ms?: ReturnType<typeof ms>; md?: ReturnType<typeof md> }) =>
  ({ machineSet: o.ms, machineDeployment: o.md }) as UpToDateOwners;
const machine = (over: { version?: string; kubelet?: string } = {}) =>
  ({
    spec: {
      clusterName: 'c',
      version: over.version,
      infrastructureRef: { apiGroup: 'i', kind: 'TestMachine', name: 'm' },
    },
    status: over.kubelet ? { nodeInfo: { kubeletVersion: over.kubelet } } : {},
  }) as Pick<MachineObject, 'spec' | 'status'>;
const updating = (message?: string): Condition[] => [
  {
    type: 'Updating',
    status: 'True',
    reason: 'InPlaceUpdating',
    lastTransitionTime: 't',
    ...(message ? { message } : {}),
  },
];

describe('upToDateCondition (upstream TestSetUpToDateCondition cases)', () => {
  it('no condition for stand-alone Machines and stand-alone MachineSets', () => {
    expect(upToDateCondition(machine(), [], owners({}), NOW)).toBeUndefined();
    expect(upToDateCondition(machine(), [], owners({ ms: ms('v1.31.0') }), NOW)).toBeUndefined();
  });

  it('up-to-date', () => {
    expect(upToDateCondition(machine(), [], owners({ ms: ms('v1.31.0'), md: md('v1.31.0') }), NOW)).toEqual({
      type: 'UpToDate',
      status: 'True',
      reason: 'UpToDate',
    });
  });

  it('updating: False/Updating with the Updating condition message (none when it has none)', () => {
    const o = owners({ ms: ms('v1.31.0'), md: md('v1.31.0') });
    expect(upToDateCondition(machine(), updating(), o, NOW)).toEqual({
      type: 'UpToDate',
      status: 'False',
      reason: 'Updating',
      message: undefined,
    });
    expect(upToDateCondition(machine(), updating('In-place update in progress: step 2'), o, NOW)).toMatchObject({
      reason: 'Updating',
      message: 'In-place update in progress: step 2',
    });
  });

  it('not up-to-date: condition messages of the template comparison', () => {
    expect(upToDateCondition(machine(), [], owners({ ms: ms('v1.30.0'), md: md('v1.31.0') }), NOW)).toEqual({
      type: 'UpToDate',
      status: 'False',
      reason: 'NotUpToDate',
      message: '* Version v1.30.0, v1.31.0 required',
    });
  });

  it('NotUpToDate wins over Updating', () => {
    expect(
      upToDateCondition(machine(), updating('x'), owners({ ms: ms('v1.30.0'), md: md('v1.31.0') }), NOW),
    ).toMatchObject({ reason: 'NotUpToDate' });
  });

  it('rolloutAfter: not expired → up to date; expired for an MS created before it → not; MS created after → up to date', () => {
    expect(
      upToDateCondition(
        machine(),
        [],
        owners({ ms: ms('v1.31.0', hoursFromNow(-1)), md: md('v1.31.0', hoursFromNow(1)) }),
        NOW,
      )!.status,
    ).toBe('True');
    expect(
      upToDateCondition(
        machine(),
        [],
        owners({ ms: ms('v1.31.0', hoursFromNow(-2)), md: md('v1.31.0', hoursFromNow(-1)) }),
        NOW,
      ),
    ).toEqual({
      type: 'UpToDate',
      status: 'False',
      reason: 'NotUpToDate',
      message: '* MachineDeployment spec.rolloutAfter expired',
    });
    expect(
      upToDateCondition(
        machine(),
        [],
        owners({ ms: ms('v1.31.0', hoursFromNow(-1)), md: md('v1.31.0', hoursFromNow(-2)) }),
        NOW,
      )!.status,
    ).toBe('True');
  });

  it('version changed and rolloutAfter expired: both messages', () => {
    expect(
      upToDateCondition(
        machine(),
        [],
        owners({ ms: ms('v1.31.0', hoursFromNow(-2)), md: md('v1.30.0', hoursFromNow(-1)) }),
        NOW,
      )!.message,
    ).toBe('* Version v1.31.0, v1.30.0 required\n* MachineDeployment spec.rolloutAfter expired');
  });

  it('kubelet version check comes last: only for an otherwise up-to-date, not updating Machine', () => {
    const o = owners({ ms: ms('v1.31.0'), md: md('v1.31.0') });
    expect(upToDateCondition(machine({ version: 'v1.31.0', kubelet: 'v1.30.0' }), [], o, NOW)).toEqual({
      type: 'UpToDate',
      status: 'False',
      reason: 'NotUpToDate',
      message: '* Kubelet version v1.30.0, v1.31.0 required',
    });
    expect(upToDateCondition(machine({ version: 'v1.31.0', kubelet: 'v1.30.0' }), updating('u'), o, NOW)).toMatchObject(
      { reason: 'Updating' },
    );
    expect(upToDateCondition(machine({ version: 'v1.31.0', kubelet: 'v1.31.0' }), [], o, NOW)!.status).toBe('True');
    expect(upToDateCondition(machine({ version: 'v1.31.0' }), [], o, NOW)!.status).toBe('True');
  });
});
