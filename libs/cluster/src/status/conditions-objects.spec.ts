// Upstream cluster_controller_status_test.go: TestSetRemoteConnectionProbeCondition, TestSetInfrastructureReadyCondition,
// TestSetControlPlaneAvailableCondition, TestSetControlPlaneInitialized. Left out: the "topology not yet reconcile"
// cases of the last three (ClusterClass only).
import type { Cluster, ConditionInput, Machine } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import {
  controlPlaneAvailableCondition,
  controlPlaneInitializedCondition,
  infrastructureReadyCondition,
  remoteConnectionProbeCondition,
} from './conditions-objects';
import type { HealthCheckingState } from '@capi/clustercache';
import {
  fakeCluster,
  fakeControlPlane,
  fakeInfraCluster,
  fakeMachine,
  unstructuredConditions,
} from '../testing/status-fakes';

const LOGS = 'Please check controller logs for errors';

describe('remoteConnectionProbeCondition (upstream TestSetRemoteConnectionProbeCondition)', () => {
  const now = Date.parse('2026-03-01T10:00:00.250Z');
  const grace = 5 * 60_000;
  const type = 'RemoteConnectionProbe';
  it.each<[string, Cluster, HealthCheckingState, ConditionInput | undefined]>([
    [
      'connection down, did not try to connect yet',
      fakeCluster('c'),
      { consecutiveFailures: 0 },
      { type, status: 'False', reason: 'ProbeFailed', message: 'Remote connection not established yet' },
    ],
    [
      // undefined: the existing True condition is kept as it is.
      'connection down, did not try to connect yet (preserve existing condition)',
      fakeCluster('c', { conditions: [{ type, status: 'True', reason: 'ProbeSucceeded' }] }),
      { consecutiveFailures: 0 },
      undefined,
    ],
    [
      'connection down, tried to connect, but failed',
      fakeCluster('c'),
      { lastProbeTime: now, consecutiveFailures: 4 },
      { type, status: 'False', reason: 'ProbeFailed', message: 'Remote connection not established yet' },
    ],
    [
      'connection down, tried to connect, but failed >=5 times',
      fakeCluster('c'),
      { lastProbeTime: now, consecutiveFailures: 5 },
      { type, status: 'False', reason: 'ProbeFailed', message: 'Remote connection probe failed' },
    ],
    [
      'connection down, last probe success more than remote connection grace period ago',
      fakeCluster('c'),
      { lastProbeTime: now, lastProbeSuccessTime: now - grace - 1000, consecutiveFailures: 2 },
      {
        type,
        status: 'False',
        reason: 'ProbeFailed',
        message: 'Remote connection probe failed, probe last succeeded at 2026-03-01T09:54:59Z',
      },
    ],
    [
      'connection up, last probe succeeded within remote connection grace period',
      fakeCluster('c'),
      { lastProbeTime: now, lastProbeSuccessTime: now - grace + 1000, consecutiveFailures: 2 },
      { type, status: 'True', reason: 'ProbeSucceeded' },
    ],
  ])('%s', (_name, cluster, state, want) => {
    expect(remoteConnectionProbeCondition(cluster, state, grace, now)).toEqual(want);
  });
});

describe('infrastructureReadyCondition (upstream TestSetInfrastructureReadyCondition)', () => {
  const type = 'InfrastructureReady';
  const ref = { infrastructureRef: { kind: 'FakeInfraCluster' } };
  it.each<[string, Cluster, KubeObject | undefined, boolean, ConditionInput]>([
    [
      'mirror Ready condition from infra cluster',
      fakeCluster('c', ref),
      fakeInfraCluster('i1', {
        status: {
          conditions: unstructuredConditions({
            type: 'Ready',
            status: 'False',
            message: 'some message',
            reason: 'SomeReason',
          }),
        },
      }),
      false,
      { type, status: 'False', reason: 'SomeReason', message: 'some message' },
    ],
    [
      'mirror Ready condition from infra cluster (true)',
      fakeCluster('c', ref),
      // reason not set for v1beta1 conditions
      fakeInfraCluster('i1', {
        status: { conditions: unstructuredConditions({ type: 'Ready', status: 'True', message: 'some message' }) },
      }),
      false,
      { type, status: 'True', reason: 'Ready', message: 'some message' },
    ],
    [
      'Use status.InfrastructureReady flag as a fallback Ready condition from infra cluster is missing',
      fakeCluster('c', ref),
      fakeInfraCluster('i1', { status: { initialization: { provisioned: false } } }),
      false,
      {
        type,
        status: 'False',
        reason: 'NotReady',
        message: 'FakeInfraCluster status.initialization.provisioned is false',
      },
    ],
    [
      'Use status.InfrastructureReady flag as a fallback Ready condition from infra cluster is missing (ready true)',
      fakeCluster('c', { ...ref, infrastructureProvisioned: true }),
      fakeInfraCluster('i1', { status: { initialization: { provisioned: true } } }),
      false,
      { type, status: 'True', reason: 'Ready' },
    ],
    [
      'invalid Ready condition from infra cluster',
      fakeCluster('c', ref),
      fakeInfraCluster('i1', { status: { conditions: unstructuredConditions({ type: 'Ready' }) } }),
      false,
      {
        type,
        status: 'Unknown',
        reason: 'InvalidConditionReported',
        message:
          'failed to convert status.conditions from FakeInfraCluster to []metav1.Condition: status must be set for the Ready condition',
      },
    ],
    [
      'failed to get infra cluster',
      fakeCluster('c', { ...ref, deleted: true }),
      undefined,
      false,
      { type, status: 'Unknown', reason: 'InternalError', message: LOGS },
    ],
    [
      'infra cluster that was ready not found while cluster is deleting',
      fakeCluster('c', { ...ref, infrastructureProvisioned: true, deleted: true }),
      undefined,
      true,
      { type, status: 'False', reason: 'ObjectDeleted', message: 'FakeInfraCluster has been deleted' },
    ],
    [
      'infra cluster not found while cluster is deleting',
      fakeCluster('c', { ...ref, deleted: true }),
      undefined,
      true,
      { type, status: 'False', reason: 'ObjectDoesNotExist', message: 'FakeInfraCluster does not exist' },
    ],
    [
      'infra cluster not found after the cluster has been initialized',
      fakeCluster('c', { ...ref, infrastructureProvisioned: true }),
      undefined,
      true,
      {
        type,
        status: 'False',
        reason: 'ObjectDeleted',
        message: 'FakeInfraCluster has been deleted while the cluster still exists',
      },
    ],
    [
      'infra cluster not found',
      fakeCluster('c', ref),
      undefined,
      true,
      { type, status: 'False', reason: 'ObjectDoesNotExist', message: 'FakeInfraCluster does not exist' },
    ],
  ])('%s', (_name, cluster, infra, notFound, want) => {
    expect(infrastructureReadyCondition(cluster, infra, notFound)).toEqual(want);
  });
});

describe('controlPlaneAvailableCondition (upstream TestSetControlPlaneAvailableCondition)', () => {
  const type = 'ControlPlaneAvailable';
  const ref = { controlPlaneRef: { kind: 'FakeControlPlane' } };
  it.each<[string, Cluster, KubeObject | undefined, boolean, ConditionInput]>([
    [
      'mirror Available condition from control plane',
      fakeCluster('c', ref),
      fakeControlPlane('cp1', {
        status: {
          conditions: unstructuredConditions({
            type: 'Available',
            status: 'False',
            message: 'some message',
            reason: 'SomeReason',
          }),
        },
      }),
      false,
      { type, status: 'False', reason: 'SomeReason', message: 'some message' },
    ],
    [
      'mirror Available condition from control plane (true)',
      fakeCluster('c', ref),
      fakeControlPlane('cp1', {
        status: { conditions: unstructuredConditions({ type: 'Available', status: 'True', message: 'some message' }) },
      }),
      false,
      { type, status: 'True', reason: 'Available', message: 'some message' },
    ],
    [
      'Use status.controlPlaneReady flag as a fallback Available condition from control plane is missing',
      fakeCluster('c', ref),
      fakeControlPlane('cp1', { status: { initialization: { controlPlaneInitialized: false } } }),
      false,
      {
        type,
        status: 'False',
        reason: 'NotAvailable',
        message: 'FakeControlPlane status.initialization.controlPlaneInitialized is false',
      },
    ],
    [
      'Use status.controlPlaneReady flag as a fallback Available condition from control plane is missing (ready true)',
      fakeCluster('c', { ...ref, controlPlaneInitialized: true }),
      fakeControlPlane('cp1', { status: { initialization: { controlPlaneInitialized: true } } }),
      false,
      { type, status: 'True', reason: 'Available' },
    ],
    [
      'invalid Available condition from control plane',
      fakeCluster('c', ref),
      fakeControlPlane('cp1', { status: { conditions: unstructuredConditions({ type: 'Available' }) } }),
      false,
      {
        type,
        status: 'Unknown',
        reason: 'InvalidConditionReported',
        message:
          'failed to convert status.conditions from FakeControlPlane to []metav1.Condition: status must be set for the Available condition',
      },
    ],
    [
      'failed to get control planer',
      fakeCluster('c', { ...ref, deleted: true }),
      undefined,
      false,
      { type, status: 'Unknown', reason: 'InternalError', message: LOGS },
    ],
    [
      'control plane that was ready not found while cluster is deleting',
      fakeCluster('c', { ...ref, controlPlaneInitialized: true, deleted: true }),
      undefined,
      true,
      { type, status: 'False', reason: 'ObjectDeleted', message: 'FakeControlPlane has been deleted' },
    ],
    [
      'control plane not found while cluster is deleting',
      fakeCluster('c', { ...ref, deleted: true }),
      undefined,
      true,
      { type, status: 'False', reason: 'ObjectDoesNotExist', message: 'FakeControlPlane does not exist' },
    ],
    [
      'control plane not found after the cluster has been initialized',
      fakeCluster('c', { ...ref, controlPlaneInitialized: true }),
      undefined,
      true,
      {
        type,
        status: 'False',
        reason: 'ObjectDeleted',
        message: 'FakeControlPlane has been deleted while the cluster still exists',
      },
    ],
    [
      'control plane not found',
      fakeCluster('c', ref),
      undefined,
      true,
      { type, status: 'False', reason: 'ObjectDoesNotExist', message: 'FakeControlPlane does not exist' },
    ],
  ])('%s', (_name, cluster, cp, notFound, want) => {
    expect(controlPlaneAvailableCondition(cluster, cp, notFound)).toEqual(want);
  });
});

describe('controlPlaneInitializedCondition (upstream TestSetControlPlaneInitialized)', () => {
  const type = 'ControlPlaneInitialized';
  const ref = { controlPlaneRef: { kind: 'FakeControlPlane' } };
  interface Case {
    cluster: Cluster;
    controlPlane?: KubeObject;
    controlPlaneIsNotFound?: boolean;
    machines?: Machine[];
    getDescendantsSucceeded?: boolean;
    /** undefined: the existing condition stays. */
    want: ConditionInput | undefined;
  }
  it.each<[string, Case]>([
    [
      'cluster with control plane, control plane does not exist',
      {
        cluster: fakeCluster('c', ref),
        controlPlaneIsNotFound: true,
        want: { type, status: 'Unknown', reason: 'ObjectDoesNotExist', message: 'FakeControlPlane does not exist' },
      },
    ],
    [
      'cluster with control plane, unexpected error reading the CP',
      { cluster: fakeCluster('c', ref), want: { type, status: 'Unknown', reason: 'InternalError', message: LOGS } },
    ],
    [
      'cluster with control plane, not yet initialized',
      {
        cluster: fakeCluster('c', ref),
        controlPlane: fakeControlPlane('cp'),
        want: { type, status: 'False', reason: 'NotInitialized', message: 'Control plane not yet initialized' },
      },
    ],
    [
      'cluster with control plane, initialized',
      {
        cluster: fakeCluster('c', ref),
        controlPlane: fakeControlPlane('cp', { status: { initialization: { controlPlaneInitialized: true } } }),
        want: { type, status: 'True', reason: 'Initialized' },
      },
    ],
    [
      'cluster with stand alone CP machines, failed to read descendants',
      {
        cluster: fakeCluster('c'),
        getDescendantsSucceeded: false,
        want: { type, status: 'Unknown', reason: 'InternalError', message: LOGS },
      },
    ],
    [
      'cluster with stand alone CP machines, no machines with a node yet',
      {
        cluster: fakeCluster('c'),
        getDescendantsSucceeded: true,
        want: {
          type,
          status: 'False',
          reason: 'NotInitialized',
          message: 'Waiting for the first control plane machine to have status.nodeRef set',
        },
      },
    ],
    [
      'cluster with stand alone CP machines, at least one machine with a node',
      {
        cluster: fakeCluster('c'),
        getDescendantsSucceeded: true,
        machines: [fakeMachine('cp1', { nodeRef: 'Foo' })],
        want: { type, status: 'True', reason: 'Initialized' },
      },
    ],
    [
      'initialized never flips back to false',
      {
        cluster: fakeCluster('c', { ...ref, conditions: [{ type, status: 'True', reason: 'Initialized' }] }),
        controlPlane: fakeControlPlane('cp', { status: { initialization: { controlPlaneInitialized: false } } }),
        want: undefined,
      },
    ],
  ])('%s', (_name, c) => {
    const got = controlPlaneInitializedCondition(
      c.cluster,
      c.controlPlane,
      'v1beta2',
      c.machines ?? [],
      c.controlPlaneIsNotFound ?? false,
      c.getDescendantsSucceeded ?? false,
    );
    expect(got).toEqual(c.want);
  });

  it('v1beta1 control planes report status.initialized', () => {
    const cp = fakeControlPlane('cp', { status: { initialized: true } });
    expect(controlPlaneInitializedCondition(fakeCluster('c', ref), cp, 'v1beta1', [], false, true)?.status).toBe(
      'True',
    );
    expect(controlPlaneInitializedCondition(fakeCluster('c', ref), cp, 'v1beta2', [], false, true)?.status).toBe(
      'False',
    );
  });
  it('a status.initialized that is not a bool is an internal error', () => {
    const cp = fakeControlPlane('cp', { status: { initialization: { controlPlaneInitialized: 'yes' } } });
    expect(controlPlaneInitializedCondition(fakeCluster('c', ref), cp, 'v1beta2', [], false, true)).toEqual({
      type,
      status: 'Unknown',
      reason: 'InternalError',
      message: LOGS,
    });
  });
});
