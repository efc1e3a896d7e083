import { PENDING_HOOKS_ANNOTATION, UPDATE_IN_PROGRESS_ANNOTATION } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import { readyCondition } from './ready';
import { availableCondition, computeMachineStatus, machinePhase, nodeConditions, updatingCondition } from './status';
import type { MachineObject } from './types';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const clockAt = (ms: number) => ({ now: () => ms });

function machine(over: Partial<MachineObject> = {}): MachineObject {
  return {
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Machine',
    metadata: { name: 'm', namespace: 'ns', generation: 1 },
    spec: {
      clusterName: 'c',
      bootstrap: { configRef: { apiGroup: 'bootstrap.cluster.x-k8s.io', kind: 'KubeadmConfig', name: 'b' } },
      infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'TestMachine', name: 'i' },
    },
    ...over,
  } as MachineObject;
}

const readyObj = (kind: string): KubeObject => ({
  apiVersion: 'x/v1',
  kind,
  metadata: { name: 'x' },
  status: {
    conditions: [{ type: 'Ready', status: 'True', reason: 'Ready', lastTransitionTime: '2026-01-01T00:00:00Z' }],
  },
});
const healthyNode: KubeObject = {
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: 'n1' },
  status: {
    conditions: [
      { type: 'Ready', status: 'True' },
      { type: 'MemoryPressure', status: 'False' },
      { type: 'DiskPressure', status: 'False' },
      { type: 'PIDPressure', status: 'False' },
    ],
  },
};

function running(over: Partial<MachineObject> = {}): MachineObject {
  const m = machine(over);
  m.spec.providerID = 'test://i';
  m.status = {
    initialization: { infrastructureProvisioned: true, bootstrapDataSecretCreated: true },
    nodeRef: { name: 'n1' },
    ...(m.status ?? {}),
  };
  return m;
}

describe('machinePhase', () => {
  it('follows upstream precedence', () => {
    expect(machinePhase(machine())).toBe('Pending');
    expect(machinePhase(machine({ status: { initialization: { bootstrapDataSecretCreated: true } } } as never))).toBe(
      'Provisioning',
    );
    const provisioned = machine();
    provisioned.spec.providerID = 'p';
    expect(machinePhase(provisioned)).toBe('Provisioned');
    expect(machinePhase(running())).toBe('Running');
    const updating = [
      { type: 'Updating', status: 'True' as const, reason: 'InPlaceUpdating', lastTransitionTime: 't' },
    ];
    expect(machinePhase(running(), updating)).toBe('Updating');
    expect(machinePhase(running(), [{ ...updating[0], status: 'False', reason: 'NotUpdating' }])).toBe('Running');
    const deleting = running();
    deleting.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
    expect(machinePhase(deleting, updating)).toBe('Deleting');
  });

  it('has no Failed phase (v1beta2): deprecated failureReason does not change it', () => {
    expect(machinePhase(running({ status: { deprecated: { v1beta1: { failureReason: 'x' } } } } as never))).toBe(
      'Running',
    );
  });

  it('starts from the current phase, as upstream (a Running Machine that lost its nodeRef stays Running)', () => {
    const m = machine({ status: { phase: 'Running' } } as never);
    expect(machinePhase(m)).toBe('Running');
  });
});

describe('conditions', () => {
  it('missing objects are reported with DoesNotExist; without configRef bootstrap is DataSecretProvided', () => {
    const r = computeMachineStatus({
      machine: machine(),
      bootstrap: { notFound: true },
      infra: { notFound: true },
      node: {},
      clock: clockAt(T0),
    });
    const byType = Object.fromEntries(r.status.conditions!.map((c) => [c.type, c]));
    expect(byType.BootstrapConfigReady).toMatchObject({
      status: 'False',
      reason: 'DoesNotExist',
      message: 'KubeadmConfig does not exist',
    });
    expect(byType.InfrastructureReady).toMatchObject({ status: 'False', reason: 'DoesNotExist' });
    expect(byType.NodeHealthy).toMatchObject({
      status: 'Unknown',
      reason: 'InspectionFailed',
      message: 'Waiting for TestMachine to report spec.providerID',
    });
    expect(byType.Updating).toMatchObject({ status: 'False', reason: 'NotUpdating' });
    expect(byType.Deleting).toMatchObject({ status: 'False', reason: 'NotDeleting' });
    expect(byType.Ready).toMatchObject({ status: 'False', reason: 'NotReady' });
    expect(byType.Available).toMatchObject({ status: 'False', reason: 'NotReady' });
    expect(r.status.phase).toBe('Pending');
    const noRef = machine();
    noRef.spec.bootstrap = { dataSecretName: 's' };
    const r2 = computeMachineStatus({
      machine: noRef,
      bootstrap: { notFound: false },
      infra: { notFound: true },
      node: {},
      clock: clockAt(T0),
    });
    expect(r2.status.conditions!.find((c) => c.type === 'BootstrapConfigReady')).toMatchObject({
      status: 'True',
      reason: 'DataSecretProvided',
    });
  });

  it('a healthy running machine is Ready and Available after minReadySeconds', () => {
    const m = running();
    m.spec.minReadySeconds = 30;
    const inputs = {
      bootstrap: { object: readyObj('KubeadmConfig'), notFound: false },
      infra: { object: readyObj('TestMachine'), notFound: false },
      node: { node: healthyNode },
    };
    const r = computeMachineStatus({ machine: m, ...inputs, clock: clockAt(T0) });
    const get = (s: typeof r.status, t: string) => s.conditions!.find((c) => c.type === t);
    expect(get(r.status, 'Ready')).toMatchObject({ status: 'True', reason: 'Ready' });
    expect(get(r.status, 'Available')).toMatchObject({ status: 'False', reason: 'WaitingForMinReadySeconds' });
    expect(r.requeueAfterMs).toBe(30_000);
    m.status = r.status;
    const later = computeMachineStatus({ machine: m, ...inputs, clock: clockAt(T0 + 31_000) });
    expect(get(later.status, 'Available')).toMatchObject({ status: 'True', reason: 'Available' });
    expect(get(later.status, 'Ready')!.lastTransitionTime).toBe(get(r.status, 'Ready')!.lastTransitionTime);
  });

  it('an updating Machine reports Updating, is not Ready (Updating has negative polarity), not Available, phase Updating', () => {
    const m = running({
      metadata: {
        name: 'm',
        namespace: 'ns',
        annotations: { 'in-place-updates.internal.cluster.x-k8s.io/update-in-progress': '' },
      },
    } as never);
    const r = computeMachineStatus({
      machine: m,
      bootstrap: { object: readyObj('KubeadmConfig'), notFound: false },
      infra: { object: readyObj('TestMachine'), notFound: false },
      node: { node: healthyNode },
      updating: { reason: 'InPlaceUpdating', message: 'In-place update in progress: x' },
      clock: clockAt(T0),
    });
    const get = (t: string) => r.status.conditions!.find((c) => c.type === t);
    expect(get('Updating')).toMatchObject({
      status: 'True',
      reason: 'InPlaceUpdating',
      message: 'In-place update in progress: x',
    });
    expect(get('Ready')).toMatchObject({
      status: 'False',
      reason: 'NotReady',
      message: '* Updating: In-place update in progress: x',
    });
    expect(get('Available')).toEqual(expect.objectContaining({ status: 'False', reason: 'NotReady' }));
    expect(get('Available')!.message).toBeUndefined();
    expect(r.status.phase).toBe('Updating');
  });

  it('Updating is False/NotUpdating when the Machine is not updating, whatever the in-place phase reported', () => {
    const r = computeMachineStatus({
      machine: running(),
      bootstrap: { object: readyObj('KubeadmConfig'), notFound: false },
      infra: { object: readyObj('TestMachine'), notFound: false },
      node: { node: healthyNode },
      updating: { reason: 'foo', message: 'bar' },
      clock: clockAt(T0),
    });
    expect(r.status.conditions!.find((c) => c.type === 'Updating')).toMatchObject({
      status: 'False',
      reason: 'NotUpdating',
    });
  });

  it('Available only looks at Ready and minReadySeconds (no in-place reason)', () => {
    const pendingOnly = running({
      metadata: { name: 'm', annotations: { 'runtime.cluster.x-k8s.io/pending-hooks': 'UpdateMachine' } },
    } as never);
    const ready = {
      type: 'Ready',
      status: 'True' as const,
      reason: 'Ready',
      lastTransitionTime: '2026-01-01T00:00:00Z',
    };
    expect(availableCondition(pendingOnly, ready, T0 + 1000).condition).toEqual({
      type: 'Available',
      status: 'True',
      reason: 'Available',
    });
  });

  it('NodeHealthy collapses several Node conditions with the same message into Node.AllConditions (upstream)', () => {
    const stale = 'Kubelet stopped posting node status.';
    const lost: KubeObject = {
      ...healthyNode,
      status: {
        conditions: ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'].map((type) => ({
          type,
          status: 'Unknown',
          message: stale,
        })),
      },
    };
    expect(nodeConditions(running(), { node: lost })[1]).toEqual({
      type: 'NodeHealthy',
      status: 'Unknown',
      reason: 'NodeHealthUnknown',
      message: `* Node.AllConditions: ${stale}`,
    });
    // Different messages (or a single problem) are listed one by one.
    const two: KubeObject = {
      ...healthyNode,
      status: {
        conditions: [
          { type: 'Ready', status: 'False', message: 'a' },
          { type: 'MemoryPressure', status: 'True', message: 'b' },
          { type: 'DiskPressure', status: 'False' },
          { type: 'PIDPressure', status: 'False' },
        ],
      },
    };
    expect(nodeConditions(running(), { node: two })[1]).toMatchObject({
      status: 'False',
      message: '* Node.Ready: a\n* Node.MemoryPressure: b',
    });
  });

  it('node conditions: unhealthy node, deleted node, not inspected', () => {
    const sick: KubeObject = {
      ...healthyNode,
      status: {
        conditions: [
          { type: 'Ready', status: 'False', message: 'kubelet down' },
          { type: 'MemoryPressure', status: 'False' },
          { type: 'DiskPressure', status: 'False' },
          { type: 'PIDPressure', status: 'False' },
        ],
      },
    };
    const [ready, healthy] = nodeConditions(running(), { node: sick });
    expect(ready).toMatchObject({ status: 'False', reason: 'NodeNotReady', message: '* Node.Ready: kubelet down' });
    expect(healthy).toMatchObject({ status: 'False', reason: 'NodeNotHealthy' });
    expect(nodeConditions(running(), {})[1]).toMatchObject({
      status: 'False',
      reason: 'NodeDeleted',
      message: 'Node n1 has been deleted while the Machine still exists',
    });
    expect(
      nodeConditions(running(), { notInspected: 'Waiting for Cluster control plane to be initialized' })[0],
    ).toMatchObject({ status: 'Unknown', reason: 'InspectionFailed' });
  });

  it('Ready counts Deleting with negative polarity and readiness gates', () => {
    const m = running();
    m.spec.readinessGates = [{ conditionType: 'Custom' }];
    const conds = [
      { type: 'Deleting', status: 'False' as const, reason: 'NotDeleting', lastTransitionTime: 't' },
      { type: 'BootstrapConfigReady', status: 'True' as const, reason: 'Ready', lastTransitionTime: 't' },
      { type: 'InfrastructureReady', status: 'True' as const, reason: 'Ready', lastTransitionTime: 't' },
      { type: 'NodeHealthy', status: 'True' as const, reason: 'NodeHealthy', lastTransitionTime: 't' },
      { type: 'Updating', status: 'False' as const, reason: 'NotUpdating', lastTransitionTime: 't' },
    ];
    expect(readyCondition(m, conds, T0)).toMatchObject({
      status: 'Unknown',
      reason: 'ReadyUnknown',
      message: '* Custom: Condition not yet reported',
    });
    expect(
      readyCondition(m, [...conds, { type: 'Custom', status: 'True', reason: 'x', lastTransitionTime: 't' }], T0),
    ).toMatchObject({ status: 'True', reason: 'Ready' });
  });

  it('recomputing an unchanged status yields an equal object (no write)', () => {
    const m = running();
    const inputs = {
      bootstrap: { object: readyObj('KubeadmConfig'), notFound: false },
      infra: { object: readyObj('TestMachine'), notFound: false },
      node: { node: healthyNode },
    };
    const first = computeMachineStatus({ machine: m, ...inputs, clock: clockAt(T0) });
    m.status = first.status;
    const second = computeMachineStatus({ machine: m, ...inputs, clock: clockAt(T0 + 5000) });
    expect(second.status).toEqual(first.status);
  });
});

// Upstream core/reconcilers/machine/machine_controller_status_test.go TestSetUpdatingCondition: the in-place phase's
// reason/message ("foo"/"bar") while the Machine IsUpdateInProgress (either marker), NotUpdating otherwise.
describe('updatingCondition (upstream TestSetUpdatingCondition)', () => {
  const withAnnotations = (annotations?: Record<string, string>) =>
    machine({ metadata: { name: 'm', namespace: 'ns', ...(annotations ? { annotations } : {}) } });
  const report = { reason: 'foo', message: 'bar' };
  const updatingTrue = { type: 'Updating', status: 'True', reason: 'foo', message: 'bar' };
  it.each([
    [
      'A machine not in-place updating is not updating',
      undefined,
      { type: 'Updating', status: 'False', reason: 'NotUpdating' },
    ],
    ['A machine starting in-place update is updating', { [UPDATE_IN_PROGRESS_ANNOTATION]: '' }, updatingTrue],
    [
      'A machine in-place updating is updating',
      { [UPDATE_IN_PROGRESS_ANNOTATION]: '', [PENDING_HOOKS_ANNOTATION]: 'UpdateMachine' },
      updatingTrue,
    ],
    ['A machine stopping in-place updating is updating', { [PENDING_HOOKS_ANNOTATION]: 'UpdateMachine' }, updatingTrue],
  ])('%s', (_name, annotations, want) => {
    expect(updatingCondition(withAnnotations(annotations), report)).toEqual(want);
  });

  it('without a report from the in-place phase: InPlaceUpdating, "In-place update in progress" (upstream defaults)', () => {
    expect(updatingCondition(withAnnotations({ [PENDING_HOOKS_ANNOTATION]: 'UpdateMachine' }), undefined)).toEqual({
      type: 'Updating',
      status: 'True',
      reason: 'InPlaceUpdating',
      message: 'In-place update in progress',
    });
  });
});
