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
const upToDate = { type: 'UpToDate', status: 'True', reason: 'UpToDate' };
const notUpToDate = (reason: string, message: string) => ({ type: 'UpToDate', status: 'False', reason, message });

interface Case {
  name: string;
  ms?: ReturnType<typeof ms>;
  md?: ReturnType<typeof md>;
  machine?: Pick<MachineObject, 'spec' | 'status'>;
  conditions?: Condition[];
  want: object | undefined;
}

// Upstream core/reconcilers/machine/machine_controller_status_test.go TestSetUpToDateCondition, case by case.
const upstreamCases: Case[] = [
  { name: 'no condition returned for stand-alone Machines', want: undefined },
  { name: 'no condition returned for stand-alone MachineSet', ms: ms('v1.31.0'), want: undefined },
  { name: 'up-to-date', ms: ms('v1.31.0'), md: md('v1.31.0'), want: upToDate },
  {
    name: 'updating',
    ms: ms('v1.31.0'),
    md: md('v1.31.0'),
    conditions: updating(),
    want: notUpToDate('Updating', '* In-place update in progress'),
  },
  {
    name: 'kubeletVersion out of sync',
    ms: ms('v1.31.0'),
    md: md('v1.31.0'),
    machine: machine({ version: 'v1.31.0', kubelet: 'v1.30.0' }),
    want: notUpToDate('Updating', '* Node.status.nodeInfo.kubeletVersion v1.30.0, v1.31.0 required'),
  },
  {
    name: 'updating (message from Updating)',
    ms: ms('v1.31.0'),
    md: md('v1.31.0'),
    conditions: updating('In-place update in progress: Extension is updating Machine'),
    want: notUpToDate('Updating', '* In-place update in progress: Extension is updating Machine'),
  },
  {
    name: 'not up-to-date',
    ms: ms('v1.30.0'),
    md: md('v1.31.0'),
    want: notUpToDate('NotUpToDate', '* Version v1.30.0, v1.31.0 required'),
  },
  {
    name: 'up-to-date, spec.rolloutAfter not expired',
    ms: ms('v1.31.0', hoursFromNow(-1)),
    md: md('v1.31.0', hoursFromNow(1)),
    want: upToDate,
  },
  {
    name: 'up-to-date, rollout After expired and a new MS created at rollout after time',
    ms: ms('v1.31.0', hoursFromNow(-1)),
    md: md('v1.31.0', hoursFromNow(-1)),
    want: upToDate,
  },
  {
    name: 'not up-to-date, rollout After expired',
    ms: ms('v1.31.0', hoursFromNow(-2)),
    md: md('v1.31.0', hoursFromNow(-1)),
    want: notUpToDate('NotUpToDate', '* MachineDeployment spec.rolloutAfter expired'),
  },
  {
    name: 'not up-to-date, rollout After expired and a new MS created',
    ms: ms('v1.31.0', hoursFromNow(-1)),
    md: md('v1.31.0', hoursFromNow(-2)),
    want: upToDate,
  },
  {
    name: 'not up-to-date, version changed, rollout After expired',
    ms: ms('v1.31.0', hoursFromNow(-2)),
    md: md('v1.30.0', hoursFromNow(-1)),
    want: notUpToDate(
      'NotUpToDate',
      '* Version v1.31.0, v1.30.0 required\n* MachineDeployment spec.rolloutAfter expired',
    ),
  },
];

// Beyond upstream's table: precedence and edges of the same function.
const moreCases: Case[] = [
  {
    name: 'NotUpToDate wins over Updating',
    ms: ms('v1.30.0'),
    md: md('v1.31.0'),
    conditions: updating('x'),
    want: notUpToDate('NotUpToDate', '* Version v1.30.0, v1.31.0 required'),
  },
  {
    name: 'Updating wins over the kubelet version',
    ms: ms('v1.31.0'),
    md: md('v1.31.0'),
    machine: machine({ version: 'v1.31.0', kubelet: 'v1.30.0' }),
    conditions: updating('u'),
    want: notUpToDate('Updating', '* u'),
  },
  {
    name: 'matching kubelet version: up to date',
    ms: ms('v1.31.0'),
    md: md('v1.31.0'),
    machine: machine({ version: 'v1.31.0', kubelet: 'v1.31.0' }),
    want: upToDate,
  },
  {
    name: 'no kubelet version reported: up to date',
    ms: ms('v1.31.0'),
    md: md('v1.31.0'),
    machine: machine({ version: 'v1.31.0' }),
    want: upToDate,
  },
  {
    name: 'a kubelet version reported and no spec.version: compared as upstream (with the empty string)',
    ms: ms('v1.31.0'),
    md: md('v1.31.0'),
    machine: machine({ kubelet: 'v1.30.0' }),
    want: notUpToDate('Updating', '* Node.status.nodeInfo.kubeletVersion v1.30.0,  required'),
  },
  {
    name: 'an Updating condition that is False is ignored',
    ms: ms('v1.31.0'),
    md: md('v1.31.0'),
    conditions: [{ ...updating()[0], status: 'False', reason: 'NotUpdating' }],
    want: upToDate,
  },
  {
    name: 'rollout.after expired one second after the MS was created: not up to date (strictly before)',
    ms: ms('v1.31.0', hoursFromNow(-1)),
    md: md('v1.31.0', new Date(NOW.getTime() - 3_600_000 + 1000).toISOString().replace(/\.\d{3}Z$/, 'Z')),
    want: notUpToDate('NotUpToDate', '* MachineDeployment spec.rolloutAfter expired'),
  },
  {
    name: 'rollout.after exactly now is not expired yet (strictly before now)',
    ms: ms('v1.31.0', hoursFromNow(-2)),
    md: md('v1.31.0', hoursFromNow(0)),
    want: upToDate,
  },
  {
    name: 'rollout.after expired and the MS has no creationTimestamp (zero time, before anything): not up to date',
    ms: ms('v1.31.0'),
    md: md('v1.31.0', hoursFromNow(-1)),
    want: notUpToDate('NotUpToDate', '* MachineDeployment spec.rolloutAfter expired'),
  },
];

describe('upToDateCondition (upstream TestSetUpToDateCondition)', () => {
  it.each(upstreamCases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const owners = { machineSet: c.ms, machineDeployment: c.md } as UpToDateOwners;
    expect(upToDateCondition(c.machine ?? machine(), c.conditions ?? [], owners, NOW)).toEqual(c.want);
  });
});

describe('upToDateCondition (precedence and edges)', () => {
  it.each(moreCases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const owners = { machineSet: c.ms, machineDeployment: c.md } as UpToDateOwners;
    expect(upToDateCondition(c.machine ?? machine(), c.conditions ?? [], owners, NOW)).toEqual(c.want);
  });
});
