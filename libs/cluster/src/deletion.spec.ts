// upstream core/reconcilers/cluster/cluster_controller.go reconcileDelete, one step at a time; the ok-to-delete cases
// are TestClusterReconciler_reconcileDelete's.
import type { Cluster, Machine, MachineDeployment } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import {
  CLUSTER_DELETING_DELETION_COMPLETED_REASON,
  CLUSTER_DELETING_INTERNAL_ERROR_REASON,
  CLUSTER_DELETING_WAITING_FOR_BEFORE_DELETE_HOOK_REASON,
  CLUSTER_DELETING_WAITING_FOR_CONTROL_PLANE_DELETION_REASON,
  CLUSTER_DELETING_WAITING_FOR_INFRASTRUCTURE_DELETION_REASON,
  CLUSTER_DELETING_WAITING_FOR_WORKERS_DELETION_REASON,
  DELETE_REQUEUE_AFTER_MS,
  decideDeletion,
} from './deletion';
import { emptyDescendants, type ClusterScope } from './scope';

const OWNER = [{ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', name: 'c', uid: 'u' }];
const cluster = (more: Partial<Cluster['metadata']> = {}, spec: Cluster['spec'] = {}): Cluster =>
  ({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Cluster',
    metadata: { name: 'c', namespace: 'ns', uid: 'u', deletionTimestamp: '2020-01-01T00:00:00Z', ...more },
    spec: {
      controlPlaneRef: { apiGroup: 'controlplane.cluster.x-k8s.io', kind: 'KubeadmControlPlane', name: 'cp' },
      infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'InMemoryCluster', name: 'infra' },
      ...spec,
    },
  }) as Cluster;
const obj = (kind: string, name: string, more: Partial<KubeObject['metadata']> = {}) =>
  ({ apiVersion: 'x/v1', kind, metadata: { name, namespace: 'ns', ...more } }) as KubeObject;
const scope = (s: Partial<ClusterScope> = {}): ClusterScope => ({
  cluster: cluster(),
  infraCluster: obj('InMemoryCluster', 'infra'),
  infraClusterIsNotFound: false,
  controlPlane: obj('KubeadmControlPlane', 'cp'),
  controlPlaneIsNotFound: false,
  descendants: emptyDescendants(),
  getDescendantsSucceeded: true,
  ...s,
});
const names = (objs: KubeObject[]) => objs.map((o) => o.metadata.name);

describe('decideDeletion', () => {
  it('workers first: deletes the owned MachineDeployment, waits (requeue) while any worker is left', () => {
    const md = obj('MachineDeployment', 'md', { ownerReferences: OWNER }) as MachineDeployment;
    const ms = obj('MachineSet', 'md-x') as never; // owned by the MachineDeployment: left to it
    const w = obj('Machine', 'md-x-1') as Machine;
    const d = decideDeletion(
      scope({
        descendants: { ...emptyDescendants(), machineDeployments: [md], machineSets: [ms], workerMachines: [w] },
      }),
    );
    expect(names(d.toDelete)).toEqual(['md']);
    expect(d.reason).toBe(CLUSTER_DELETING_WAITING_FOR_WORKERS_DELETION_REASON);
    expect(d.message).toBe('* MachineDeployments: md\n* MachineSets: md-x\n* Worker Machines: md-x-1');
    expect(d.requeueAfterMs).toBe(DELETE_REQUEUE_AFTER_MS);
    expect(d.done).toBe(false);
  });

  it('a descendant already deleting is not deleted again, and still waited for', () => {
    const md = obj('MachineDeployment', 'md', { ownerReferences: OWNER, deletionTimestamp: '2020-01-01T00:00:00Z' });
    const d = decideDeletion(
      scope({ descendants: { ...emptyDescendants(), machineDeployments: [md as MachineDeployment] } }),
    );
    expect(d.toDelete).toEqual([]);
    expect(d.reason).toBe(CLUSTER_DELETING_WAITING_FOR_WORKERS_DELETION_REASON);
  });

  it('control plane Machines of a control plane object do not hold the deletion: the control plane goes next', () => {
    const cpm = obj('Machine', 'cp-1') as Machine;
    const d = decideDeletion(scope({ descendants: { ...emptyDescendants(), controlPlaneMachines: [cpm] } }));
    expect(names(d.toDelete)).toEqual(['cp']);
    expect(d.reason).toBe(CLUSTER_DELETING_WAITING_FOR_CONTROL_PLANE_DELETION_REASON);
    expect(d.message).toBe('Waiting for KubeadmControlPlane to be deleted');
    expect(d.requeueAfterMs).toBeUndefined(); // the control plane is watched
  });

  it('waits for a deleting control plane without deleting it again', () => {
    const d = decideDeletion(scope({ controlPlane: obj('KubeadmControlPlane', 'cp', { deletionTimestamp: 'x' }) }));
    expect(d.toDelete).toEqual([]);
    expect(d.reason).toBe(CLUSTER_DELETING_WAITING_FOR_CONTROL_PLANE_DELETION_REASON);
  });

  it('then the infrastructure cluster', () => {
    const d = decideDeletion(scope({ controlPlane: undefined, controlPlaneIsNotFound: true }));
    expect(names(d.toDelete)).toEqual(['infra']);
    expect(d.reason).toBe(CLUSTER_DELETING_WAITING_FOR_INFRASTRUCTURE_DELETION_REASON);
    expect(d.message).toBe('Waiting for InMemoryCluster to be deleted');
  });

  it('then done: the finalizer goes', () => {
    const d = decideDeletion(
      scope({
        controlPlane: undefined,
        controlPlaneIsNotFound: true,
        infraCluster: undefined,
        infraClusterIsNotFound: true,
      }),
    );
    expect(d).toEqual({
      toDelete: [],
      reason: CLUSTER_DELETING_DELETION_COMPLETED_REASON,
      message: 'Deletion completed',
      done: true,
    });
  });

  it('a control plane read error (not NotFound) stops the deletion with InternalError', () => {
    const d = decideDeletion(scope({ controlPlane: undefined, controlPlaneIsNotFound: false }));
    expect(d.reason).toBe(CLUSTER_DELETING_INTERNAL_ERROR_REASON);
    expect(d.toDelete).toEqual([]);
    expect(d.done).toBe(false);
  });

  it('failed getDescendants: InternalError, nothing deleted', () => {
    const d = decideDeletion(scope({ getDescendantsSucceeded: false }));
    expect(d).toMatchObject({
      reason: CLUSTER_DELETING_INTERNAL_ERROR_REASON,
      message: 'Please check controller logs for errors',
      toDelete: [],
    });
  });

  it('without a control plane object, stand-alone control plane Machines are deleted after the workers, with them', () => {
    const s = scope({
      cluster: cluster({}, { controlPlaneRef: undefined }),
      controlPlane: undefined,
      descendants: {
        ...emptyDescendants(),
        controlPlaneMachines: [obj('Machine', 'cp-1', { ownerReferences: OWNER }) as Machine],
        workerMachines: [obj('Machine', 'w-1', { ownerReferences: OWNER }) as Machine],
      },
    });
    s.cluster.spec = { infrastructureRef: s.cluster.spec!.infrastructureRef };
    const d = decideDeletion(s);
    expect(names(d.toDelete)).toEqual(['w-1', 'cp-1']);
    expect(d.message).toBe('* Control plane Machines: cp-1\n* Worker Machines: w-1');
  });

  describe('BeforeClusterDelete hook (RuntimeSDK and ClusterTopology on, Cluster with a topology)', () => {
    const topo = (annotations?: Record<string, string>) =>
      scope({ cluster: cluster({ annotations }, { topology: { classRef: { name: 'class' } } } as never) });
    it('should proceed with delete if the cluster has the ok-to-delete annotation', () => {
      const d = decideDeletion(topo({ 'runtime.cluster.x-k8s.io/ok-to-delete': '' }), true);
      expect(d.reason).toBe(CLUSTER_DELETING_WAITING_FOR_CONTROL_PLANE_DELETION_REASON);
    });
    it('should not proceed with delete if the cluster does not have the ok-to-delete annotation', () => {
      const d = decideDeletion(topo(), true);
      expect(d).toMatchObject({
        reason: CLUSTER_DELETING_WAITING_FOR_BEFORE_DELETE_HOOK_REASON,
        message: 'Waiting for BeforeClusterDelete hook',
        toDelete: [],
      });
    });
  });
});
