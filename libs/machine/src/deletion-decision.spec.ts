// Cases ported from upstream core/reconcilers/machine/machine_controller_test.go: TestIsNodeDrainedAllowed,
// TestIsNodeVolumeDetachingAllowed, TestIsDeleteNodeAllowed (the decision; the Node lookup by providerID and the
// control plane read are in machine-deletion.ts, covered by the envtest), TestNodeDeletion (the timeout rule).
import { formatTime, type KubeObject } from '@capi/apimachinery';
import {
  deleteNodeNotAllowed,
  isExternallyManagedControlPlane,
  isNodeDrainAllowed,
  isNodeVolumeDetachingAllowed,
  preDrainHookWait,
  preTerminateHookWait,
  waitForNodeDeletion,
  type DeleteNodeInput,
} from './deletion-decision';
import type { MachineObject } from './types';

const NOW = Date.parse('2026-01-01T12:00:00Z');
const ago = (seconds: number) => formatTime(NOW - seconds * 1000);

const machine = (m: {
  annotations?: Record<string, string>;
  deletion?: NonNullable<MachineObject['spec']['deletion']>;
  statusDeletion?: NonNullable<NonNullable<MachineObject['status']>['deletion']>;
  deletionTimestamp?: string;
}): MachineObject =>
  ({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Machine',
    metadata: {
      name: 'test-machine',
      namespace: 'default',
      finalizers: ['machine.cluster.x-k8s.io'],
      annotations: m.annotations,
      deletionTimestamp: m.deletionTimestamp,
    },
    spec: {
      clusterName: 'test-cluster',
      bootstrap: { dataSecretName: 'data' },
      infrastructureRef: {
        apiGroup: 'infrastructure.cluster.x-k8s.io',
        kind: 'GenericInfrastructureMachine',
        name: 'i',
      },
      deletion: m.deletion,
    },
    status: m.statusDeletion ? { deletion: m.statusDeletion } : {},
  }) as MachineObject;

const infra: KubeObject = { apiVersion: 'x/v1', kind: 'GenericInfrastructureMachine', metadata: { name: 'i' } };
const deletingInfra: KubeObject = { ...infra, metadata: { name: 'i', deletionTimestamp: ago(1) } };

describe('isNodeDrainAllowed (upstream TestIsNodeDrainedAllowed)', () => {
  it.each([
    [
      'Exclude node draining annotation exists',
      machine({ annotations: { 'machine.cluster.x-k8s.io/exclude-node-draining': 'existed!!' } }),
      infra,
      false,
    ],
    ['Machine without exclude draining annotaion should drain', machine({}), infra, true],
    ['Machine without infra machine should not drain', machine({}), undefined, false],
    ['Machine with infra machine in deletion should not drain', machine({}), deletingInfra, false],
    [
      'Machine in the pre-terminate hook phase should not drain',
      machine({ statusDeletion: { waitForPreTerminateHookStartTime: ago(0) } }),
      infra,
      false,
    ],
    [
      'Node draining timeout is over',
      machine({ deletion: { nodeDrainTimeoutSeconds: 60 }, statusDeletion: { nodeDrainStartTime: ago(70) } }),
      infra,
      false,
    ],
    [
      'Node draining timeout is not yet over',
      machine({ deletion: { nodeDrainTimeoutSeconds: 60 }, statusDeletion: { nodeDrainStartTime: ago(30) } }),
      infra,
      true,
    ],
    [
      'NodeDrainTimeoutSeconds option is set to its default value 0',
      machine({ statusDeletion: { nodeDrainStartTime: ago(1000) } }),
      infra,
      true,
    ],
  ] as const)('%s', (_name, m, infraMachine, expected) => {
    expect(isNodeDrainAllowed(m, infraMachine, NOW)).toBe(expected);
  });
});

describe('isNodeVolumeDetachingAllowed (upstream TestIsNodeVolumeDetachingAllowed)', () => {
  it.each([
    [
      'Exclude wait node volume detaching annotation exists',
      machine({ annotations: { 'machine.cluster.x-k8s.io/exclude-wait-for-node-volume-detach': 'existed!!' } }),
      infra,
      false,
    ],
    ['Machine without volume detaching annotaion should detach', machine({}), infra, true],
    [
      'Machine in the pre-terminate hook phase should not detach',
      machine({ statusDeletion: { waitForPreTerminateHookStartTime: ago(0) } }),
      infra,
      false,
    ],
    ['Machine without infra machine should not detach', machine({}), undefined, false],
    ['Machine with infra machine in deletion should not detach', machine({}), deletingInfra, false],
    [
      'Volume detach timeout is over',
      machine({
        deletion: { nodeVolumeDetachTimeoutSeconds: 30 },
        statusDeletion: { waitForNodeVolumeDetachStartTime: ago(60) },
      }),
      infra,
      false,
    ],
    [
      'Volume detach timeout is not yet over',
      machine({
        deletion: { nodeVolumeDetachTimeoutSeconds: 60 },
        statusDeletion: { waitForNodeVolumeDetachStartTime: ago(30) },
      }),
      infra,
      true,
    ],
    [
      "Volume detach timeout option is set to it's default value 0",
      machine({ statusDeletion: { waitForNodeVolumeDetachStartTime: ago(1000) } }),
      infra,
      true,
    ],
  ] as const)('%s', (_name, m, infraMachine, expected) => {
    expect(isNodeVolumeDetachingAllowed(m, infraMachine, NOW)).toBe(expected);
  });
});

describe('deleteNodeNotAllowed (upstream TestIsDeleteNodeAllowed)', () => {
  // Upstream's fixture: two more Machines cp1/cp2 in the Cluster, carrying the control-plane label only in the cases
  // expecting no error ("we assume a healthy control plane"); the Machine under test is counted when active.
  const base: DeleteNodeInput = { clusterDeleting: false, nodeName: 'test', activeControlPlaneMachines: 0 };
  it.each([
    ['machine without nodeRef', { ...base, nodeName: undefined }, 'nilNodeRef'],
    ['no control plane members', base, 'noControlPlaneNodes'],
    // The deleting control-plane Machine itself is not active: nothing else is a control-plane Machine.
    ['is last control plane member', base, 'noControlPlaneNodes'],
    ['has nodeRef and control plane is healthy', { ...base, activeControlPlaneMachines: 2 }, undefined],
    [
      'has nodeRef and cluster is being deleted',
      { ...base, clusterDeleting: true, nodeName: undefined },
      'clusterIsBeingDeleted',
    ],
    [
      'has nodeRef and control plane is healthy and externally managed',
      { ...base, activeControlPlaneMachines: 2, controlPlane: { deleting: false, externallyManaged: true } },
      undefined,
    ],
    [
      'has nodeRef, control plane is being deleted and not externally managed',
      { ...base, controlPlane: { deleting: true, externallyManaged: false } },
      'controlPlaneIsBeingDeleted',
    ],
    [
      'has nodeRef, control plane is being deleted and is externally managed',
      { ...base, controlPlane: { deleting: true, externallyManaged: true } },
      'controlPlaneIsBeingDeleted',
    ],
    // The Node found by the infra machine's providerID stands in for the nodeRef (machine-deletion.ts looks it up).
    [
      'no nodeRef, infrastructure machine has providerID',
      { ...base, nodeName: 'node-1', activeControlPlaneMachines: 2 },
      undefined,
    ],
  ] as const)('%s', (_name, input, expected) => {
    expect(deleteNodeNotAllowed(input)).toBe(expected);
  });

  it('an externally managed control plane is one whose status.externalManagedControlPlane is true', () => {
    const cp = (status: unknown): KubeObject => ({ apiVersion: 'x/v1', kind: 'CP', metadata: { name: 'cp' }, status });
    expect(isExternallyManagedControlPlane(cp({ externalManagedControlPlane: true }))).toBe(true);
    expect(isExternallyManagedControlPlane(cp({ externalManagedControlPlane: false }))).toBe(false);
    expect(isExternallyManagedControlPlane(cp(undefined))).toBe(false);
  });
});

describe('deletion hooks (upstream reconcileDelete)', () => {
  it('waits for every pre-drain hook, anyone’s, listed sorted', () => {
    const m = machine({
      annotations: {
        'pre-drain.delete.hook.machine.cluster.x-k8s.io/zeta': '',
        'pre-drain.delete.hook.machine.cluster.x-k8s.io/alpha': 'owner',
        'pre-terminate.delete.hook.machine.cluster.x-k8s.io/other': '',
        'unrelated.example.com/x': '',
      },
    });
    expect(preDrainHookWait(m)).toEqual({
      reason: 'WaitingForPreDrainHook',
      message:
        'Waiting for pre-drain hooks to succeed (hooks: pre-drain.delete.hook.machine.cluster.x-k8s.io/alpha,pre-drain.delete.hook.machine.cluster.x-k8s.io/zeta)',
      hooks: [
        'pre-drain.delete.hook.machine.cluster.x-k8s.io/alpha',
        'pre-drain.delete.hook.machine.cluster.x-k8s.io/zeta',
      ],
      startField: 'waitForPreDrainHookStartTime',
    });
  });

  it('waits for pre-terminate hooks, the KCP one included', () => {
    const m = machine({ annotations: { 'pre-terminate.delete.hook.machine.cluster.x-k8s.io/kcp-cleanup': '' } });
    expect(preDrainHookWait(m)).toBeUndefined();
    expect(preTerminateHookWait(m)).toMatchObject({
      reason: 'WaitingForPreTerminateHook',
      message:
        'Waiting for pre-terminate hooks to succeed (hooks: pre-terminate.delete.hook.machine.cluster.x-k8s.io/kcp-cleanup)',
      startField: 'waitForPreTerminateHookStartTime',
    });
  });

  it('a prefix without its dot-separated domain is not a hook; no annotations, no wait', () => {
    expect(preTerminateHookWait(machine({ annotations: { 'pre-terminate.delete.hook.machine': '' } }))).toBeUndefined();
    expect(preTerminateHookWait(machine({}))).toBeUndefined();
  });
});

describe('waitForNodeDeletion (upstream TestNodeDeletion, the timeout rule)', () => {
  const deleted = ago(1);
  it.each([
    ['timeout not expired (1h)', 3600, true],
    ['timeout 0 is infinite', 0, true],
    ['no timeout is infinite', undefined, true],
    ['timeout expired (1s since a deletion 1s ago): continue without the Node', 1, false],
  ] as const)('%s', (_name, seconds, wait) => {
    expect(
      waitForNodeDeletion(
        machine({
          deletionTimestamp: deleted,
          deletion: seconds === undefined ? undefined : { nodeDeletionTimeoutSeconds: seconds },
        }),
        NOW,
      ),
    ).toBe(wait);
  });
});
