// computeClusterStatus: upstream updateStatus end to end (its parts have their own specs).
import { getCondition } from '@capi/api';
import { emptyDescendants, type ClusterScope } from '../scope';
import { computeClusterStatus, type ClusterStatusInputs } from './index';
import {
  fakeCluster,
  fakeControlPlane,
  fakeInfraCluster,
  fakeMachine,
  fakeMachineDeployment,
  unstructuredConditions,
} from '../testing/status-fakes';

const now = new Date('2026-03-01T10:00:00Z');
const inputs = (o: Partial<ClusterStatusInputs> = {}): ClusterStatusInputs => ({
  controlPlaneContractVersion: 'v1beta2',
  remoteConnectionGracePeriodMs: 50_000,
  now,
  healthCheckingState: {
    lastProbeTime: now.getTime(),
    lastProbeSuccessTime: now.getTime() - 1000,
    consecutiveFailures: 0,
  },
  ...o,
});

function provisionedScope(): ClusterScope {
  const cluster = fakeCluster('c', {
    controlPlaneRef: { kind: 'FakeControlPlane', name: 'cp1' },
    infrastructureRef: { kind: 'FakeInfraCluster', name: 'i1' },
    infrastructureProvisioned: true,
    controlPlaneInitialized: true,
  });
  cluster.metadata.generation = 3;
  cluster.spec.controlPlaneEndpoint = { host: '10.0.0.1', port: 6443 };
  const descendants = emptyDescendants();
  descendants.machineDeployments = [
    fakeMachineDeployment('md1', {
      desired: 2,
      replicas: 2,
      ready: 2,
      available: 2,
      upToDate: 2,
      conditions: [{ type: 'Available', status: 'True', reason: 'Available' }],
    }),
  ];
  descendants.controlPlaneMachines = [
    fakeMachine('cp-m1', {
      controlPlane: true,
      nodeRef: 'n1',
      conditions: [
        { type: 'Ready', status: 'True', reason: 'Ready' },
        { type: 'UpToDate', status: 'True', reason: 'UpToDate' },
      ],
    }),
  ];
  return {
    cluster,
    infraCluster: fakeInfraCluster('i1', {
      status: { conditions: unstructuredConditions({ type: 'Ready', status: 'True', reason: 'Ready' }) },
    }),
    infraClusterIsNotFound: false,
    controlPlane: fakeControlPlane('cp1', {
      spec: { replicas: 1 },
      status: {
        replicas: 1,
        readyReplicas: 1,
        availableReplicas: 1,
        upToDateReplicas: 1,
        initialization: { controlPlaneInitialized: true },
        conditions: unstructuredConditions({ type: 'Available', status: 'True', reason: 'Available' }),
      },
    }),
    controlPlaneIsNotFound: false,
    descendants,
    getDescendantsSucceeded: true,
  };
}

describe('computeClusterStatus', () => {
  it('a provisioned Cluster with an available control plane and workers is Available', () => {
    const scope = provisionedScope();
    const before = JSON.stringify(scope.cluster);
    const { status, phaseChanged, phase } = computeClusterStatus(scope, inputs());
    expect(JSON.stringify(scope.cluster)).toBe(before);
    expect([phase, phaseChanged, status.phase]).toEqual(['Provisioned', true, 'Provisioned']);
    expect(status.controlPlane).toEqual({
      desiredReplicas: 1,
      replicas: 1,
      readyReplicas: 1,
      availableReplicas: 1,
      upToDateReplicas: 1,
    });
    expect(status.workers).toEqual({
      desiredReplicas: 2,
      replicas: 2,
      readyReplicas: 2,
      availableReplicas: 2,
      upToDateReplicas: 2,
    });
    const summary = Object.fromEntries((status.conditions ?? []).map((c) => [c.type, `${c.status}/${c.reason}`]));
    expect(summary).toEqual({
      RemoteConnectionProbe: 'True/ProbeSucceeded',
      InfrastructureReady: 'True/Ready',
      ControlPlaneAvailable: 'True/Available',
      ControlPlaneInitialized: 'True/Initialized',
      WorkersAvailable: 'True/Available',
      ControlPlaneMachinesReady: 'True/Ready',
      WorkerMachinesReady: 'True/NoReplicas',
      ControlPlaneMachinesUpToDate: 'True/UpToDate',
      WorkerMachinesUpToDate: 'True/NoReplicas',
      RollingOut: 'Unknown/RollingOutUnknown',
      ScalingUp: 'Unknown/ScalingUpUnknown',
      ScalingDown: 'Unknown/ScalingDownUnknown',
      Remediating: 'False/NotRemediating',
      Deleting: 'False/NotDeleting',
      Available: 'True/Available',
    });
    expect(getCondition(status.conditions, 'RollingOut')?.message).toBe(
      '* MachineDeployment md1: Condition RollingOut not yet reported',
    );
    for (const c of status.conditions ?? []) {
      expect(c.observedGeneration).toBe(3);
      expect(c.lastTransitionTime).toBe('2026-03-01T10:00:00Z');
    }
  });

  it('a second pass with nothing changed keeps every condition as it was and reports no phase change', () => {
    const scope = provisionedScope();
    const first = computeClusterStatus(scope, inputs());
    scope.cluster = { ...scope.cluster, status: first.status };
    const second = computeClusterStatus(scope, inputs({ now: new Date(now.getTime() + 30_000) }));
    expect(second.phaseChanged).toBe(false);
    expect(second.status).toEqual(first.status);
  });

  it('a status change moves lastTransitionTime; a message change alone does not', () => {
    const scope = provisionedScope();
    const first = computeClusterStatus(scope, inputs());
    scope.cluster = { ...scope.cluster, status: first.status };
    const later = new Date(now.getTime() + 120_000);
    // The probe has failed for longer than the grace period.
    const second = computeClusterStatus(scope, inputs({ now: later }));
    const probe = getCondition(second.status.conditions, 'RemoteConnectionProbe');
    expect(probe).toMatchObject({ status: 'False', reason: 'ProbeFailed', lastTransitionTime: '2026-03-01T10:02:00Z' });
    const available = getCondition(second.status.conditions, 'Available');
    expect(available).toMatchObject({
      status: 'False',
      reason: 'NotAvailable',
      message: '* RemoteConnectionProbe: Remote connection probe failed, probe last succeeded at 2026-03-01T09:59:59Z',
    });
    scope.cluster = { ...scope.cluster, status: second.status };
    const third = computeClusterStatus(scope, inputs({ now: new Date(later.getTime() + 60_000) }));
    expect(getCondition(third.status.conditions, 'RemoteConnectionProbe')?.lastTransitionTime).toBe(
      '2026-03-01T10:02:00Z',
    );
  });

  it('a new Cluster without refs: Pending, not yet connected, stand-alone counters empty', () => {
    const scope: ClusterScope = {
      cluster: fakeCluster('c'),
      infraClusterIsNotFound: false,
      controlPlaneIsNotFound: false,
      descendants: emptyDescendants(),
      getDescendantsSucceeded: true,
    };
    const { status, phase } = computeClusterStatus(scope, inputs({ healthCheckingState: undefined }));
    expect(phase).toBe('Pending');
    expect(getCondition(status.conditions, 'RemoteConnectionProbe')).toMatchObject({
      status: 'False',
      message: 'Remote connection not established yet',
    });
    expect(getCondition(status.conditions, 'ControlPlaneInitialized')).toMatchObject({
      status: 'False',
      message: 'Waiting for the first control plane machine to have status.nodeRef set',
    });
    expect(status.controlPlane).toEqual({});
    expect(status.workers).toEqual({});
  });

  it('a deleting Cluster gets the Deleting reason and message the deletion path set', () => {
    const scope = provisionedScope();
    scope.cluster.metadata.deletionTimestamp = '2026-03-01T09:00:00Z';
    scope.deletingReason = 'WaitingForWorkersDeletion';
    scope.deletingMessage = '* MachineDeployments: md1';
    const { status, phase, phaseChanged } = computeClusterStatus(scope, inputs());
    expect([phase, phaseChanged]).toEqual(['Deleting', true]);
    expect(getCondition(status.conditions, 'Deleting')).toMatchObject({
      status: 'True',
      reason: 'WaitingForWorkersDeletion',
      message: '* MachineDeployments: md1',
    });
    expect(getCondition(status.conditions, 'Available')).toMatchObject({
      status: 'False',
      message: '* Deleting:\n  * MachineDeployments: md1',
    });
  });
});
