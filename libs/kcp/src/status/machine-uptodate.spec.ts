import { machineUpToDateCondition } from './machine-uptodate';
import { machine } from '../testing/fixtures';

const withConditions = (name: string, conds: Record<string, 'True' | 'False'>, version?: string) => {
  const m = machine(name, { version });
  m.status = {
    ...m.status,
    conditions: Object.entries(conds).map(([type, status]) => ({
      type,
      status,
      reason: type,
      lastTransitionTime: '2026-01-01T00:00:00Z',
    })),
  };
  return m;
};

describe('machineUpToDateCondition', () => {
  // Upstream kubeadmcontrolplane_controller_test.go TestKubeadmControlPlaneReconciler_reconcileControlPlaneAndMachinesConditions:
  // the Machine UpToDate conditions of its cases (the workload-cluster connection cases are not about UpToDate).
  it.each([
    ['Machines up to date', {}, true, [], { status: 'True', reason: 'UpToDate' }],
    [
      'Machines in place updating, machine not up-to-date date',
      { annotations: { 'in-place-updates.internal.cluster.x-k8s.io/update-in-progress': '' } },
      true,
      [],
      { status: 'False', reason: 'Updating', message: '* In-place update in progress' },
    ],
    [
      'Machines.spec.version out of sync with kubeletVersion, machine not up-to-date date',
      { kubelet: 'v1.30.0' },
      true,
      [],
      {
        status: 'False',
        reason: 'Updating',
        message: '* Node.status.nodeInfo.kubeletVersion v1.30.0, v1.31.0 required',
      },
    ],
    [
      'Machines not up to date',
      {},
      false,
      ['Version v1.30.0, v1.31.0 required'],
      { status: 'False', reason: 'NotUpToDate', message: '* Version v1.30.0, v1.31.0 required' },
    ],
  ] as const)('%s', (_, opts, specUpToDate, messages, want) => {
    const m = machine('machine1-test', {
      version: 'v1.31.0',
      annotations: 'annotations' in opts ? { ...opts.annotations } : undefined,
    });
    if ('kubelet' in opts) m.status = { ...m.status, nodeInfo: { kubeletVersion: opts.kubelet } };
    expect(machineUpToDateCondition(m, specUpToDate, messages)).toEqual({ type: 'UpToDate', ...want });
  });

  // Upstream kubeadmcontrolplane_controller_test.go TestKubeadmControlPlaneReconciler_reconcileMachineUpToDateCondition:
  // a Machine whose kubelet still reports the old version is Updating, not up-to-date.
  it('False/Updating while Node.status.nodeInfo.kubeletVersion lags spec.version', () => {
    const lagging = machine('a', { version: 'v1.31.0' });
    lagging.status = { ...lagging.status, nodeInfo: { kubeletVersion: 'v1.30.0' } };
    expect(machineUpToDateCondition(lagging, true, [])).toEqual({
      type: 'UpToDate',
      status: 'False',
      reason: 'Updating',
      message: '* Node.status.nodeInfo.kubeletVersion v1.30.0, v1.31.0 required',
    });
    lagging.status.nodeInfo = { kubeletVersion: 'v1.31.0' };
    expect(machineUpToDateCondition(lagging, true, []).status).toBe('True');
    lagging.status.nodeInfo = {};
    expect(machineUpToDateCondition(lagging, true, []).status).toBe('True');
    // Not up-to-date wins over the kubelet lag.
    lagging.status.nodeInfo = { kubeletVersion: 'v1.30.0' };
    expect(machineUpToDateCondition(lagging, false, ['Version v1.31.0, v1.32.0 required']).reason).toBe('NotUpToDate');
  });

  it('True when up-to-date, False/NotUpToDate with bullet messages, False/Updating while updating in place', () => {
    expect(machineUpToDateCondition(machine('a'), true, [])).toEqual({
      type: 'UpToDate',
      status: 'True',
      reason: 'UpToDate',
    });
    expect(
      machineUpToDateCondition(machine('a'), false, [
        'Version v1.30.0, v1.31.0 required',
        'KubeadmConfig is not up-to-date',
      ]),
    ).toEqual({
      type: 'UpToDate',
      status: 'False',
      reason: 'NotUpToDate',
      message: '* Version v1.30.0, v1.31.0 required\n* KubeadmConfig is not up-to-date',
    });
    // Spec already at desired but the update is running: still not up-to-date; the message mirrors Updating's.
    const updating = machine('a', { annotations: { 'runtime.cluster.x-k8s.io/pending-hooks': 'UpdateMachine' } });
    expect(machineUpToDateCondition(updating, true, [])).toEqual({
      type: 'UpToDate',
      status: 'False',
      reason: 'Updating',
      message: '* In-place update in progress',
    });
    updating.status = {
      conditions: [
        {
          type: 'Updating',
          status: 'True',
          reason: 'InPlaceUpdating',
          message: 'In-place update in progress: Extension is updating Machine',
          lastTransitionTime: '2026-01-01T00:00:00Z',
        },
      ],
    };
    expect(machineUpToDateCondition(updating, true, [])).toMatchObject({
      reason: 'Updating',
      message: '* In-place update in progress: Extension is updating Machine',
    });
    // Not up-to-date wins over an update in progress (desired spec changed again mid-update), as upstream.
    expect(machineUpToDateCondition(updating, false, ['Version v1.31.0, v1.32.0 required'])).toMatchObject({
      reason: 'NotUpToDate',
      message: '* Version v1.31.0, v1.32.0 required',
    });
    // Only the markers count, as upstream's IsUpdateInProgress: an Updating condition alone does not.
    expect(machineUpToDateCondition(withConditions('b', { Updating: 'True' }), true, [])).toMatchObject({
      status: 'True',
      reason: 'UpToDate',
    });
  });
});
