// Runs decideEtcdMembers against the workload cluster (upstream reconcileEtcdMembers): removes one member, then asks
// for a new reconcile; refusals and failures are errors (the reconcile is retried with backoff, EtcdClusterHealthy
// keeps saying what is wrong).
import type { ReconcileLogger, Result } from '@capi/controller-runtime';
import type { ControlPlaneObservation } from './control-plane-view';
import { ETCD_CLUSTER_HEALTHY_CONDITION } from './constants';
import { decideEtcdMembers } from './etcd-members';

/** Upstream: a new reconcile one second after removing a member. */
export const ETCD_MEMBER_REMOVED_REQUEUE_MS = 1000;

export async function reconcileEtcdMembers(
  observed: ControlPlaneObservation,
  log: ReconcileLogger,
): Promise<Result | undefined> {
  const decision = decideEtcdMembers({
    etcdManaged: observed.etcdManaged,
    machines: observed.view.map((m) => m.machine),
    machineHealth: observed.machineHealth,
    members: observed.etcdMembers,
    alarms: observed.etcdAlarms,
    nodeListError: observed.nodesError,
    etcdClusterHealthy: observed.kcpHealth.some(
      (c) => c.type === ETCD_CLUSTER_HEALTHY_CONDITION && c.status === 'True',
    ),
  });
  switch (decision.type) {
    case 'none':
      if (decision.log) log.log(decision.log);
      return undefined;
    case 'error':
      throw new Error(decision.message);
    case 'remove': {
      log.log(decision.log);
      if (!observed.workload) throw new Error('cannot get remote client to workload cluster');
      try {
        await observed.workload.removeEtcdMember(decision.member);
      } catch (e) {
        throw new Error(
          `failed to remove etcd member ${decision.memberLabel}. Please check the etcd status: ${(e as Error).message}`,
          { cause: e },
        );
      }
      log.log(`Etcd member without a corresponding Machine removed from the cluster: ${decision.memberLabel}`);
      return { requeueAfterMs: ETCD_MEMBER_REMOVED_REQUEUE_MS };
    }
  }
}
