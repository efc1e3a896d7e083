// Upstream controlplane/kubeadm/reconcilers/kubeadmcontrolplane/status_test.go TestSetReplicas,
// Test_setInitializedCondition, TestKubeadmControlPlaneReconciler_setControlPlaneInitialized and
// TestKubeadmControlPlaneReconciler_setLastRemediation (every case; "the kubeadm config exists" is, here, a
// control-plane Node that is Ready).
import { lastRemediation } from '../remediation';
import { bareKcp, bareMachine, type Cond } from '../testing/status';
import { controlPlaneInitialized, initializedCondition, replicaCounters } from './replicas';

describe('TestSetReplicas', () => {
  it('counts Ready, Available and UpToDate from the Machines conditions', () => {
    const c = (type: string, status: Cond['status']): Cond => ({ type, status });
    const m = (name: string, ready: Cond['status'], available: Cond['status'], upToDate: Cond['status']) =>
      bareMachine(name, { conditions: [c('Ready', ready), c('Available', available), c('UpToDate', upToDate)] });
    const machines = [
      m('m1', 'True', 'True', 'True'),
      m('m2', 'True', 'True', 'True'),
      m('m3', 'False', 'False', 'True'),
      m('m4', 'True', 'False', 'True'),
      m('m5', 'False', 'False', 'False'),
      m('m6', 'Unknown', 'Unknown', 'Unknown'),
    ];
    expect(replicaCounters(machines)).toEqual({
      replicas: 6,
      readyReplicas: 3,
      availableReplicas: 2,
      upToDateReplicas: 4,
    });
  });
});

describe('Test_setInitializedCondition', () => {
  it('KCP not initialized', () => {
    expect(initializedCondition(controlPlaneInitialized(bareKcp(), [], false))).toEqual({
      type: 'Initialized',
      status: 'False',
      reason: 'NotInitialized',
    });
  });
  it('KCP initialized', () => {
    const kcp = bareKcp({ status: { initialization: { controlPlaneInitialized: true } } });
    expect(initializedCondition(controlPlaneInitialized(kcp, [], false))).toEqual({
      type: 'Initialized',
      status: 'True',
      reason: 'Initialized',
    });
  });
});

describe('TestKubeadmControlPlaneReconciler_setControlPlaneInitialized', () => {
  it('ControlPlaneInitialized false if the kubeadm config does not exist yet', () => {
    expect(controlPlaneInitialized(bareKcp(), [], false)).toBe(false);
  });
  it('ControlPlaneInitialized true if the kubeadm config exists', () => {
    expect(controlPlaneInitialized(bareKcp(), [bareMachine('m1')], true)).toBe(true);
  });
  it('kubeadm config exists is ignored if there is a single CP machine and it is marked for remediation', () => {
    const m1 = bareMachine('m1', {
      conditions: [
        { type: 'HealthCheckSucceeded', status: 'False', reason: 'NodeDeleted' },
        {
          type: 'OwnerRemediated',
          status: 'False',
          reason: 'WaitingForRemediation',
          message: 'Waiting for remediation',
        },
      ],
    });
    expect(controlPlaneInitialized(bareKcp(), [m1], true)).toBe(false);
  });
  it('kubeadm config exists is ignored if there is a single CP machine and it is deleting', () => {
    const m1 = bareMachine('m1', { deleting: '2026-06-01T12:00:00Z' });
    expect(controlPlaneInitialized(bareKcp(), [m1], true)).toBe(false);
  });
  it('once initialized, stays initialized', () => {
    const kcp = bareKcp({ status: { initialization: { controlPlaneInitialized: true } } });
    expect(controlPlaneInitialized(kcp, [bareMachine('m1', { deleting: '2026-06-01T12:00:00Z' })], false)).toBe(true);
  });
});

describe('TestKubeadmControlPlaneReconciler_setLastRemediation', () => {
  const data = (machine: string, retryCount: number) =>
    JSON.stringify({ machine, timestamp: '2026-06-01T12:00:00Z', retryCount });
  it('No remediation yet', () => {
    expect(lastRemediation(bareKcp(), [])).toBeUndefined();
  });
  it('Remediation in progress', () => {
    // Remediation in progress in KCP takes precedence over old remediation recorded on machines.
    const kcp = bareKcp();
    kcp.metadata.annotations = { 'controlplane.cluster.x-k8s.io/remediation-in-progress': data('m2', 2) };
    const m1 = bareMachine('m1', { annotations: { 'controlplane.cluster.x-k8s.io/remediation-for': data('m1', 1) } });
    expect(lastRemediation(kcp, [m1])).toEqual({ machine: 'm2', time: '2026-06-01T12:00:00Z', retryCount: 2 });
  });
  it('Remediation completed, get data from past remediation', () => {
    const m1 = bareMachine('m1', { annotations: { 'controlplane.cluster.x-k8s.io/remediation-for': data('m1', 1) } });
    expect(lastRemediation(bareKcp(), [m1])).toEqual({ machine: 'm1', time: '2026-06-01T12:00:00Z', retryCount: 1 });
  });
});
