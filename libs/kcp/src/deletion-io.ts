// A deleting KubeadmControlPlane's reconcile (upstream kubeadmcontrolplane_controller.go reconcileDelete): reads the
// Machines, carries out deletion.ts's decision and writes the Deleting condition.
import { KUBEADM_CONTROL_PLANE_FINALIZER, type Cluster, type KubeadmControlPlane } from '@capi/api';
import type { PassiveClock } from '@capi/apimachinery';
import { refOf, type EventRecorder, type ReconcileLogger, type Result } from '@capi/controller-runtime';
import { decideKcpDeletion, KCP_DELETING_INTERNAL_ERROR_REASON, type KcpDeletionDecision } from './deletion';
import { listClusterMachines, listControlPlaneMachines, type MachineIo } from './machines';
import { deleteControlPlaneMachines } from './pre-terminate-io';
import { writeKcpDeletingStatus } from './status-io';

const INTERNAL_ERROR = {
  reason: KCP_DELETING_INTERNAL_ERROR_REASON,
  message: 'Please check controller logs for errors',
};

export interface KcpDeleteDeps {
  io: MachineIo;
  log: ReconcileLogger;
  clock: PassiveClock;
  events: EventRecorder;
  requeueAfterMs: number;
}

/**
 * Once the Cluster has no worker Machines left, deletes every control-plane Machine (their kcp-cleanup hooks removed
 * first: etcd goes with all of them) and waits; the finalizer goes last.
 */
export async function reconcileKcpDelete(
  deps: KcpDeleteDeps,
  kcp: KubeadmControlPlane,
  cluster: Cluster,
): Promise<Result | void> {
  const { io, log, clock } = deps;
  let decision: KcpDeletionDecision;
  let machines;
  try {
    machines = await listControlPlaneMachines(io, kcp, cluster.metadata.name!);
    const allMachines = await listClusterMachines(io, cluster.metadata.namespace!, cluster.metadata.name!);
    decision = decideKcpDeletion({ controlPlaneMachines: machines, allMachines, nowMs: clock.now() });
  } catch (e) {
    await writeKcpDeletingStatus(io, clock, kcp, INTERNAL_ERROR);
    throw e;
  }
  if (decision.type === 'waitForWorkers') log.log('Waiting for worker nodes to be deleted first');
  if (decision.type === 'deleteMachines') {
    try {
      await deleteControlPlaneMachines(io, machines);
    } catch (e) {
      const cause = (e as Error).message;
      const clusterKey = `${cluster.metadata.namespace}/${cluster.metadata.name}`;
      await deps.events
        .event(
          kcp,
          'Warning',
          'FailedDelete',
          `Failed to delete control plane Machines for cluster ${clusterKey} control plane: ${cause}`,
        )
        .catch(() => undefined);
      await writeKcpDeletingStatus(io, clock, kcp, INTERNAL_ERROR);
      throw e;
    }
    log.log('Waiting for control plane Machines to not exist anymore');
  }
  await writeKcpDeletingStatus(io, clock, kcp, decision.deleting);
  if (decision.type !== 'done') return { requeueAfterMs: deps.requeueAfterMs };
  // Deletion completed: nothing to wait for any more (upstream kubeadmcontrolplane_controller.go reconcileDelete).
  io.controller?.clearConsistencyStore(
    { namespace: kcp.metadata.namespace, name: kcp.metadata.name! },
    kcp.metadata.uid,
  );
  if (kcp.metadata.finalizers?.includes(KUBEADM_CONTROL_PLANE_FINALIZER)) {
    await io.client.patch(refOf(kcp), 'merge', {
      metadata: { finalizers: kcp.metadata.finalizers.filter((f) => f !== KUBEADM_CONTROL_PLANE_FINALIZER) },
    });
  }
}
