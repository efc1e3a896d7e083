// Upstream cluster_controller_status_test.go: TestDeletingCondition and TestSetAvailableCondition. Left out (ClusterClass
// only): "TopologyReconciled is required when the cluster is using CC", "Takes into account Availability gates when
// defined on the cluster class". The four TopologyReconciled-reason cases run on a Cluster without spec.topology: the
// condition is present, so what they test (its merge priority) is the same.
import type { Cluster, ConditionInput } from '@capi/api';
import { availableCondition, deletingCondition } from './conditions-available';
import { fakeCluster, type C } from '../testing/status-fakes';

describe('deletingCondition (upstream TestDeletingCondition)', () => {
  const type = 'Deleting';
  const message =
    '* Control plane Machines: cp1, cp2, cp3\n* MachineDeployments: md1, md2\n* MachineSets: ms1, ms2\n' +
    '* Worker Machines: w1, w2, w3, w4, w5, ... (3 more)';
  it('deletionTimestamp not set', () =>
    expect(deletingCondition(fakeCluster('c'), '', '')).toEqual({ type, status: 'False', reason: 'NotDeleting' }));
  it('deletionTimestamp set (some reason/message reported)', () =>
    expect(deletingCondition(fakeCluster('c', { deleted: true }), 'WaitingForWorkersDeletion', message)).toEqual({
      type,
      status: 'True',
      reason: 'WaitingForWorkersDeletion',
      message,
    }));
});

describe('availableCondition (upstream TestSetAvailableCondition)', () => {
  const type = 'Available';
  const good: C[] = [
    { type: 'InfrastructureReady', status: 'True', reason: 'Foo' },
    { type: 'ControlPlaneAvailable', status: 'True', reason: 'Foo' },
    { type: 'WorkersAvailable', status: 'True', reason: 'Foo' },
    { type: 'RemoteConnectionProbe', status: 'True', reason: 'Foo' },
    { type: 'Deleting', status: 'False', reason: 'Foo' },
  ];
  const replace = (cs: C[], ...by: C[]) => [...cs.filter((c) => !by.some((b) => b.type === c.type)), ...by];
  const workersNotAvailable: C = {
    type: 'WorkersAvailable',
    status: 'False',
    reason: 'NotAvailable',
    message:
      '3 available replicas, at least 4 required (spec.strategy.rollout.maxUnavailable is 1, spec.replicas is 5) from MachineDeployment md1; 2 available replicas, at least 3 required (spec.strategy.rollout.maxUnavailable is 1, spec.replicas is 4) from MachinePool mp1',
  };
  const upgrading: C = {
    type: 'TopologyReconciled',
    status: 'False',
    reason: 'ClusterUpgrading',
    message: 'Cluster is upgrading to v1.22.0\n  * MachineDeployment md1 upgrading to version v1.22.0',
  };
  const ccNotReconciled: C = {
    type: 'TopologyReconciled',
    status: 'False',
    reason: 'ClusterClassNotReconciled',
    message:
      'ClusterClass not reconciled. If this condition persists please check ClusterClass status. A ClusterClass is reconciled if' +
      '.status.observedGeneration == .metadata.generation is true. If this is not the case either ClusterClass reconciliation failed or the ClusterClass is paused',
  };
  it.each<[string, Cluster, ConditionInput]>([
    [
      'Takes into account all the required conditions',
      fakeCluster('machine-test'),
      {
        type,
        status: 'Unknown',
        reason: 'AvailableUnknown',
        message:
          '* Deleting: Condition not yet reported\n* RemoteConnectionProbe: Condition not yet reported\n' +
          '* InfrastructureReady: Condition not yet reported\n* ControlPlaneAvailable: Condition not yet reported\n' +
          '* WorkersAvailable: Condition not yet reported',
      },
    ],
    [
      'TopologyReconciled is ignored when the cluster is not using CC',
      fakeCluster('machine-test', { conditions: good }),
      { type, status: 'True', reason: 'Available' },
    ],
    [
      'Handles multiline conditions',
      fakeCluster('machine-test', {
        conditions: replace(good, {
          type: 'Deleting',
          status: 'True',
          reason: 'WaitingForWorkersDeletion',
          message:
            '* Control plane Machines: cp1, cp2, cp3\n* MachineDeployments: md1, md2\n* MachineSets: ms1, ms2\n' +
            '* Worker Machines: w1, w2, w3, w4, w5, ... (3 more)',
        }),
      }),
      {
        type,
        status: 'False',
        reason: 'NotAvailable',
        message:
          '* Deleting:\n  * Control plane Machines: cp1, cp2, cp3\n  * MachineDeployments: md1, md2\n' +
          '  * MachineSets: ms1, ms2\n  * Worker Machines: w1, w2, w3, w4, w5, ... (3 more)',
      },
    ],
    [
      'Takes into account Availability gates when defined on the cluster',
      fakeCluster('machine-test', {
        availabilityGates: [
          { conditionType: 'MyAvailabilityGate' },
          { conditionType: 'MyAvailabilityGateWithNegativePolarity', polarity: 'Negative' },
        ],
        conditions: [
          ...good,
          { type: 'MyAvailabilityGate', status: 'False', reason: 'SomeReason', message: 'Some message' },
          {
            type: 'MyAvailabilityGateWithNegativePolarity',
            status: 'True',
            reason: 'SomeReason',
            message: 'Some other message',
          },
        ],
      }),
      {
        type,
        status: 'False',
        reason: 'NotAvailable',
        message: '* MyAvailabilityGate: Some message\n* MyAvailabilityGateWithNegativePolarity: Some other message',
      },
    ],
    [
      'Tolerates InfraCluster and ControlPlane do not exists while the cluster is deleting',
      fakeCluster('machine-test', {
        deleted: true,
        conditions: replace(
          good,
          { type: 'InfrastructureReady', status: 'False', reason: 'ObjectDeleted' },
          { type: 'ControlPlaneAvailable', status: 'False', reason: 'ObjectDeleted' },
          { type: 'Deleting', status: 'True', reason: 'WaitingForBeforeDeleteHook', message: 'Some message' },
        ),
      }),
      { type, status: 'False', reason: 'NotAvailable', message: '* Deleting: Some message' },
    ],
    [
      "Surfaces message from TopologyReconciled for reason that doesn't affect availability (no other issues)",
      fakeCluster('machine-test', { conditions: [...good, upgrading] }),
      {
        type,
        status: 'True',
        reason: 'Available',
        message:
          '* TopologyReconciled:\n  * Cluster is upgrading to v1.22.0\n      * MachineDeployment md1 upgrading to version v1.22.0',
      },
    ],
    [
      "Drops messages from TopologyReconciled for reason that doesn't affect availability (when there is another issue)",
      fakeCluster('machine-test', { conditions: [...replace(good, workersNotAvailable), upgrading] }),
      { type, status: 'False', reason: 'NotAvailable', message: `* WorkersAvailable: ${workersNotAvailable.message}` },
    ],
    [
      'Takes into account messages from TopologyReconciled for reason that affects availability (no other issues)',
      fakeCluster('machine-test', { conditions: [...good, ccNotReconciled] }),
      { type, status: 'False', reason: 'NotAvailable', message: `* TopologyReconciled: ${ccNotReconciled.message}` },
    ],
    [
      'Takes into account messages from TopologyReconciled for reason that affects availability (when there is another issue)',
      fakeCluster('machine-test', { conditions: [...replace(good, workersNotAvailable), ccNotReconciled] }),
      {
        type,
        status: 'False',
        reason: 'NotAvailable',
        message: `* WorkersAvailable: ${workersNotAvailable.message}\n* TopologyReconciled: ${ccNotReconciled.message}`,
      },
    ],
  ])('%s', (_name, cluster, want) => {
    expect(availableCondition(cluster)).toEqual(want);
  });

  it('an availability gate named Available is an internal error, as upstream NewSummaryCondition refuses it', () => {
    const c = fakeCluster('c', { availabilityGates: [{ conditionType: 'Available' }], conditions: good });
    expect(availableCondition(c)).toEqual({
      type,
      status: 'Unknown',
      reason: 'InternalError',
      message: 'Please check controller logs for errors',
    });
  });
});
