// Upstream controlplane/kubeadm/reconcilers/kubeadmcontrolplane/status_test.go Test_setScalingUpCondition and
// Test_setScalingDownCondition (every case).
import type { Cluster, ConditionInput } from '@capi/api';
import type { PreflightCheckResults } from '../decide';
import { T0, bareKcp, bareMachine, iso } from '../testing/status';
import { scalingDownCondition, scalingUpCondition, type ScalingInput } from './scaling';

const three = () => ['m1', 'm2', 'm3'].map((n) => bareMachine(n));
const five = () => ['m1', 'm2', 'm3', 'm4', 'm5'].map((n) => bareMachine(n));
const topologyCluster = { metadata: { name: 'c1' }, spec: { topology: { version: 'v1.32.0' } } } as unknown as Cluster;
const allPreflight: PreflightCheckResults = {
  hasDeletingMachine: true,
  certificateMissing: true,
  controlPlaneComponentsNotHealthy: true,
  etcdClusterNotHealthy: true,
  topologyVersionMismatch: true,
};
const HOUR = 3_600_000;
const MIN = 60_000;

type UpCase = [string, Omit<ScalingInput, 'nowMs'> & { infraMachineTemplateNotFound?: boolean }, ConditionInput];

describe('Test_setScalingUpCondition', () => {
  it.each<UpCase>([
    [
      'Replica not set',
      { kcp: bareKcp(), machines: [] },
      {
        type: 'ScalingUp',
        status: 'Unknown',
        reason: 'WaitingForReplicasSet',
        message: 'Waiting for spec.replicas set',
      },
    ],
    [
      'Not scaling up',
      { kcp: bareKcp({ replicas: 3 }), machines: three() },
      { type: 'ScalingUp', status: 'False', reason: 'NotScalingUp' },
    ],
    [
      'Not scaling up, infra template not found',
      {
        kcp: bareKcp({ replicas: 3, infraKind: 'AWSTemplate' }),
        machines: three(),
        infraMachineTemplateNotFound: true,
      },
      {
        type: 'ScalingUp',
        status: 'False',
        reason: 'NotScalingUp',
        message: 'Scaling up would be blocked because AWSTemplate does not exist',
      },
    ],
    [
      'Scaling up',
      { kcp: bareKcp({ replicas: 5 }), machines: three() },
      { type: 'ScalingUp', status: 'True', reason: 'ScalingUp', message: 'Scaling up from 3 to 5 replicas' },
    ],
    [
      'Scaling up is always false when kcp is deleted',
      { kcp: bareKcp({ replicas: 5, deleting: true }), machines: three() },
      { type: 'ScalingUp', status: 'False', reason: 'NotScalingUp' },
    ],
    [
      'Scaling up, infra template not found',
      {
        kcp: bareKcp({ replicas: 5, infraKind: 'AWSTemplate' }),
        machines: three(),
        infraMachineTemplateNotFound: true,
      },
      {
        type: 'ScalingUp',
        status: 'True',
        reason: 'ScalingUp',
        message: 'Scaling up from 3 to 5 replicas is blocked because:\n* AWSTemplate does not exist',
      },
    ],
    [
      'Scaling up, preflight checks blocking',
      { kcp: bareKcp({ replicas: 5 }), cluster: topologyCluster, machines: three(), preflight: allPreflight },
      {
        type: 'ScalingUp',
        status: 'True',
        reason: 'ScalingUp',
        message:
          'Scaling up from 3 to 5 replicas is blocked because:\n' +
          '* waiting for a version upgrade to v1.32.0 to be propagated\n' +
          '* waiting for a control plane Machine to complete deletion\n' +
          '* cluster certificates are missing or unknown\n' +
          '* waiting for control plane components to become healthy\n' +
          '* waiting for etcd cluster to become healthy',
      },
    ],
  ])('%s', (_, input, want) => {
    expect(scalingUpCondition({ ...input, nowMs: T0 })).toEqual(want);
  });

  it('an upgrade step annotation names the step version; extra blockers come last', () => {
    const cluster = {
      ...topologyCluster,
      metadata: { name: 'c1', annotations: { 'topology.cluster.x-k8s.io/upgrade-step': 'v1.31.0' } },
    } as Cluster;
    expect(
      scalingUpCondition({
        kcp: bareKcp({ replicas: 2 }),
        cluster,
        machines: [bareMachine('m1')],
        preflight: { topologyVersionMismatch: true },
        extraBlockers: ['spec.machineNaming.template: invalid'],
        nowMs: T0,
      }).message,
    ).toBe(
      'Scaling up from 1 to 2 replicas is blocked because:\n' +
        '* waiting for a version upgrade to v1.31.0 to be propagated\n' +
        '* spec.machineNaming.template: invalid',
    );
  });
});

describe('Test_setScalingDownCondition', () => {
  const drainMessage = `Drain not completed yet (started at 2024-10-09T16:13:59Z):
* Pods pod-2-deletionTimestamp-set-1, pod-3-to-trigger-eviction-successfully-1: deletionTimestamp set, but still not removed from the Node
* Pod pod-5-to-trigger-eviction-pdb-violated-1: cannot evict pod as it would violate the pod's disruption budget. The disruption budget pod-5-pdb needs 20 healthy pods and has 20 currently
* Pod pod-6-to-trigger-eviction-some-other-error: failed to evict Pod, some other error 1
* Pod pod-9-wait-completed: waiting for completion
After above Pods have been removed from the Node, the following Pods will be evicted: pod-7-eviction-later, pod-8-eviction-later`;
  const staleDraining = () => {
    const m = bareMachine('m1', {
      deleting: iso(T0 - HOUR),
      conditions: [{ type: 'Deleting', status: 'True', reason: 'DrainingNode', message: drainMessage }],
    });
    (m.status as Record<string, unknown>).deletion = { nodeDrainStartTime: iso(T0 - 6 * MIN) };
    return m;
  };

  it.each<[string, Omit<ScalingInput, 'nowMs'>, ConditionInput]>([
    [
      'Replica not set',
      { kcp: bareKcp(), machines: [] },
      {
        type: 'ScalingDown',
        status: 'Unknown',
        reason: 'WaitingForReplicasSet',
        message: 'Waiting for spec.replicas set',
      },
    ],
    [
      'Not scaling down',
      { kcp: bareKcp({ replicas: 3 }), machines: three() },
      { type: 'ScalingDown', status: 'False', reason: 'NotScalingDown' },
    ],
    [
      'Scaling down',
      { kcp: bareKcp({ replicas: 3 }), machines: five() },
      { type: 'ScalingDown', status: 'True', reason: 'ScalingDown', message: 'Scaling down from 5 to 3 replicas' },
    ],
    [
      'Scaling down to zero when kcp is deleted',
      { kcp: bareKcp({ replicas: 3, deleting: true }), machines: five() },
      { type: 'ScalingDown', status: 'True', reason: 'ScalingDown', message: 'Scaling down from 5 to 0 replicas' },
    ],
    [
      'Scaling down with one stale machine',
      { kcp: bareKcp({ replicas: 1 }), machines: [staleDraining(), bareMachine('m2'), bareMachine('m3')] },
      {
        type: 'ScalingDown',
        status: 'True',
        reason: 'ScalingDown',
        message:
          'Scaling down from 3 to 1 replicas is blocked because:\n' +
          '* Machine m1 is in deletion since more than 15m, delay likely due to PodDisruptionBudgets, Pods not terminating, Pod eviction errors, Pods not completed yet',
      },
    ],
    [
      'Scaling down with two stale machine',
      {
        kcp: bareKcp({ replicas: 1 }),
        machines: [
          bareMachine('m1', { deleting: iso(T0 - HOUR) }),
          bareMachine('m2', { deleting: iso(T0 - HOUR) }),
          bareMachine('m3'),
        ],
      },
      {
        type: 'ScalingDown',
        status: 'True',
        reason: 'ScalingDown',
        message:
          'Scaling down from 3 to 1 replicas is blocked because:\n* Machines m1, m2 are in deletion since more than 15m',
      },
    ],
    [
      'Scaling down, preflight checks blocking',
      {
        kcp: bareKcp({ replicas: 1 }),
        cluster: topologyCluster,
        machines: three(),
        preflight: {
          hasDeletingMachine: true,
          controlPlaneComponentsNotHealthy: true,
          etcdClusterNotHealthy: true,
          topologyVersionMismatch: true,
        },
      },
      {
        type: 'ScalingDown',
        status: 'True',
        reason: 'ScalingDown',
        message:
          'Scaling down from 3 to 1 replicas is blocked because:\n' +
          '* waiting for a version upgrade to v1.32.0 to be propagated\n' +
          '* waiting for a control plane Machine to complete deletion\n' +
          '* waiting for control plane components to become healthy\n' +
          '* waiting for etcd cluster to become healthy',
      },
    ],
  ])('%s', (_, input, want) => {
    expect(scalingDownCondition({ ...input, nowMs: T0 })).toEqual(want);
  });

  it('a Machine deleting for less than 15 minutes is not stale; more than three are abbreviated', () => {
    const fresh = bareMachine('m0', { deleting: iso(T0 - 14 * MIN) });
    const stale = ['m4', 'm3', 'm2', 'm1'].map((n) => bareMachine(n, { deleting: iso(T0 - HOUR) }));
    expect(
      scalingDownCondition({ kcp: bareKcp({ replicas: 1 }), machines: [fresh, ...stale], nowMs: T0 }).message,
    ).toBe(
      'Scaling down from 5 to 1 replicas is blocked because:\n' +
        '* Machines m1, m2, m3, ... (1 more) are in deletion since more than 15m',
    );
  });
});
