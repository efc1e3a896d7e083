// Upstream cluster_controller_status_test.go: TestSetRollingOutCondition, TestSetScalingUpCondition,
// TestSetScalingDownCondition. This project has no MachinePools: upstream's MachinePool mp1 is a second
// MachineDeployment md2 here (same condition), so its line reads "* MachineDeployment md2: ..." (or merges with md1's
// when the message is the same); the order of the lines is unchanged.
import type { ConditionInput, MachineDeployment, MachineSet } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import { rollingOutCondition, scalingDownCondition, scalingUpCondition } from './conditions-rollout';
import {
  fakeCluster,
  fakeControlPlane,
  fakeMachineDeployment,
  fakeMachineSet,
  unstructuredConditions,
  type C,
} from '../testing/status-fakes';

const LOGS = 'Please check controller logs for errors';

interface Case {
  withControlPlaneRef: boolean;
  controlPlane?: KubeObject;
  controlPlaneIsNotFound?: boolean;
  mds?: MachineDeployment[];
  mss?: MachineSet[];
  getDescendantsSucceeded: boolean;
  want: ConditionInput;
}

const run = (fn: typeof rollingOutCondition, c: Case) =>
  fn({
    cluster: fakeCluster('c', c.withControlPlaneRef ? { controlPlaneRef: { name: 'cp' } } : {}),
    controlPlane: c.controlPlane,
    controlPlaneIsNotFound: c.controlPlaneIsNotFound ?? false,
    machineDeployments: c.mds ?? [],
    machineSets: c.mss ?? [],
    getDescendantsSucceeded: c.getDescendantsSucceeded,
  });

const cpWith = (c: C) => fakeControlPlane('cp1', { status: { conditions: unstructuredConditions(c) } });
const md = (name: string, c?: C) => fakeMachineDeployment(name, c ? { conditions: [c] } : {});

describe('rollingOutCondition (upstream TestSetRollingOutCondition)', () => {
  const type = 'RollingOut';
  const ro = (n: number): C => ({
    type,
    status: 'True',
    reason: 'RollingOut',
    message: `Rolling out ${n} not up-to-date replicas`,
  });
  it.each<[string, Case]>([
    [
      'cluster with controlplane, unknown if failed to get descendants',
      {
        withControlPlaneRef: true,
        controlPlaneIsNotFound: true,
        getDescendantsSucceeded: false,
        want: { type, status: 'Unknown', reason: 'InternalError', message: LOGS },
      },
    ],
    [
      'cluster with controlplane, unknown if failed to get control plane',
      {
        withControlPlaneRef: true,
        getDescendantsSucceeded: true,
        want: { type, status: 'Unknown', reason: 'InternalError', message: LOGS },
      },
    ],
    [
      'cluster with controlplane, false if no control plane & descendants',
      {
        withControlPlaneRef: true,
        controlPlaneIsNotFound: true,
        getDescendantsSucceeded: true,
        want: { type, status: 'False', reason: 'NotRollingOut' },
      },
    ],
    [
      'cluster with controlplane, control plane & descendants do not report rolling out',
      {
        withControlPlaneRef: true,
        controlPlane: fakeControlPlane('cp1'),
        mds: [md('md2'), md('md1')],
        getDescendantsSucceeded: true,
        want: {
          type,
          status: 'Unknown',
          reason: 'RollingOutUnknown',
          message: '* MachineDeployments md1, md2: Condition RollingOut not yet reported',
        },
      },
    ],
    [
      'cluster with controlplane, control plane and descendants report rolling out',
      {
        withControlPlaneRef: true,
        controlPlane: cpWith(ro(3)),
        mds: [md('md2', ro(5)), md('md1', ro(4))],
        getDescendantsSucceeded: true,
        want: {
          type,
          status: 'True',
          reason: 'RollingOut',
          message:
            '* FakeControlPlane cp1: Rolling out 3 not up-to-date replicas\n' +
            '* MachineDeployment md1: Rolling out 4 not up-to-date replicas\n' +
            '* MachineDeployment md2: Rolling out 5 not up-to-date replicas',
        },
      },
    ],
    [
      'cluster with controlplane, control plane not reporting conditions, descendants report rolling out',
      {
        withControlPlaneRef: true,
        controlPlane: fakeControlPlane('cp1'),
        mds: [md('md2', ro(3)), md('md1', ro(5))],
        getDescendantsSucceeded: true,
        want: {
          type,
          status: 'True',
          reason: 'RollingOut',
          message:
            '* MachineDeployment md1: Rolling out 5 not up-to-date replicas\n' +
            '* MachineDeployment md2: Rolling out 3 not up-to-date replicas',
        },
      },
    ],
    [
      'cluster without controlplane, unknown if failed to get descendants',
      {
        withControlPlaneRef: false,
        getDescendantsSucceeded: false,
        want: { type, status: 'Unknown', reason: 'InternalError', message: LOGS },
      },
    ],
    [
      'cluster without controlplane, false if no descendants',
      {
        withControlPlaneRef: false,
        controlPlaneIsNotFound: true,
        getDescendantsSucceeded: true,
        want: { type, status: 'False', reason: 'NotRollingOut' },
      },
    ],
    [
      'cluster without controlplane, descendants report rolling out',
      {
        withControlPlaneRef: false,
        mds: [md('md2', ro(3)), md('md1', ro(5))],
        getDescendantsSucceeded: true,
        want: {
          type,
          status: 'True',
          reason: 'RollingOut',
          message:
            '* MachineDeployment md1: Rolling out 5 not up-to-date replicas\n' +
            '* MachineDeployment md2: Rolling out 3 not up-to-date replicas',
        },
      },
    ],
  ])('%s', (_name, c) => {
    expect(run(rollingOutCondition, c)).toEqual(c.want);
  });

  it('a control plane with unreadable conditions is left out', () => {
    const cp = fakeControlPlane('cp1', { status: { conditions: [{ type: 'RollingOut' }] } });
    const got = run(rollingOutCondition, {
      withControlPlaneRef: true,
      controlPlane: cp,
      getDescendantsSucceeded: true,
      want: {} as ConditionInput,
    });
    expect(got).toEqual({ type, status: 'False', reason: 'NotRollingOut' });
  });
});

describe.each([
  ['ScalingUp', 'TestSetScalingUpCondition', 'scaling up', scalingUpCondition],
  ['ScalingDown', 'TestSetScalingDownCondition', 'scaling down', scalingDownCondition],
])('%s (upstream %s)', (type, _test, verb, fn) => {
  const Verb = verb[0].toUpperCase() + verb.slice(1);
  const scaling = (from: number, to: number): C => ({
    type,
    status: 'True',
    reason: 'Foo',
    message: `${Verb} from ${from} to ${to} replicas`,
  });
  const owned = (name: string, c?: C) =>
    fakeMachineSet(name, { ownedByCluster: 'c', ...(c ? { conditions: [c] } : {}) });
  const notOwned = (c: C) => fakeMachineSet('ms2', { conditions: [c] });
  const unknownReason = `${type}Unknown`;
  it.each<[string, Case]>([
    [
      'cluster with controlplane, unknown if failed to get descendants',
      {
        withControlPlaneRef: true,
        controlPlaneIsNotFound: true,
        getDescendantsSucceeded: false,
        want: { type, status: 'Unknown', reason: 'InternalError', message: LOGS },
      },
    ],
    [
      'cluster with controlplane, unknown if failed to get control plane',
      {
        withControlPlaneRef: true,
        getDescendantsSucceeded: true,
        want: { type, status: 'Unknown', reason: 'InternalError', message: LOGS },
      },
    ],
    [
      'cluster with controlplane, false if no control plane & descendants',
      {
        withControlPlaneRef: true,
        controlPlaneIsNotFound: true,
        getDescendantsSucceeded: true,
        want: { type, status: 'False', reason: `Not${type}` },
      },
    ],
    [
      `cluster with controlplane, control plane & descendants do not report ${verb}`,
      {
        withControlPlaneRef: true,
        controlPlane: fakeControlPlane('cp1'),
        mds: [md('md2'), md('md1')],
        mss: [owned('ms1'), notOwned({ type, status: 'False', reason: 'Foo', message: 'foo' })],
        getDescendantsSucceeded: true,
        want: {
          type,
          status: 'Unknown',
          reason: unknownReason,
          message:
            `* MachineDeployments md1, md2: Condition ${type} not yet reported\n` +
            `* MachineSet ms1: Condition ${type} not yet reported`,
        },
      },
    ],
    [
      `cluster with controlplane, control plane and descendants report ${verb}`,
      {
        withControlPlaneRef: true,
        controlPlane: cpWith(scaling(0, 3)),
        mds: [md('md2', scaling(0, 3)), md('md1', scaling(1, 5))],
        mss: [owned('ms1', scaling(2, 7)), notOwned({ type, status: 'True', reason: 'Foo', message: 'foo' })],
        getDescendantsSucceeded: true,
        want: {
          type,
          status: 'True',
          reason: type,
          message:
            `* FakeControlPlane cp1: ${Verb} from 0 to 3 replicas\n` +
            `* MachineDeployment md1: ${Verb} from 1 to 5 replicas\n` +
            `* MachineDeployment md2: ${Verb} from 0 to 3 replicas\n` +
            'And 1 MachineSet with other issues',
        },
      },
    ],
    ...[true, false].map((withControlPlaneRef): [string, Case] => [
      withControlPlaneRef
        ? `cluster with controlplane, control plane not reporting conditions, descendants report ${verb}`
        : `cluster without controlplane, descendants report ${verb}`,
      {
        withControlPlaneRef,
        ...(withControlPlaneRef ? { controlPlane: fakeControlPlane('cp1') } : {}),
        mds: [md('md2', scaling(0, 3)), md('md1', scaling(1, 5))],
        mss: [owned('ms1', scaling(2, 7)), notOwned({ type, status: 'True', reason: 'Foo', message: 'foo' })],
        getDescendantsSucceeded: true,
        want: {
          type,
          status: 'True',
          reason: type,
          message:
            `* MachineDeployment md1: ${Verb} from 1 to 5 replicas\n` +
            `* MachineDeployment md2: ${Verb} from 0 to 3 replicas\n` +
            `* MachineSet ms1: ${Verb} from 2 to 7 replicas`,
        },
      },
    ]),
    [
      'cluster without controlplane, unknown if failed to get descendants',
      {
        withControlPlaneRef: false,
        getDescendantsSucceeded: false,
        want: { type, status: 'Unknown', reason: 'InternalError', message: LOGS },
      },
    ],
    [
      'cluster without controlplane, false if no descendants',
      {
        withControlPlaneRef: false,
        controlPlaneIsNotFound: true,
        getDescendantsSucceeded: true,
        want: { type, status: 'False', reason: `Not${type}` },
      },
    ],
  ])('%s', (_name, c) => {
    expect(run(fn, c)).toEqual(c.want);
  });
});
