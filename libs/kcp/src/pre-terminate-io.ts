// KCP's pre-terminate hook, the writes (upstream kubeadmcontrolplane_controller.go reconcilePreTerminateHook,
// forwardEtcdLeadership, removePreTerminateHookAnnotationFromMachine, and reconcileDelete's hook removal). What to do
// comes from pre-terminate.ts.
import {
  KCP_PRE_TERMINATE_HOOK_CLEANUP_ANNOTATION,
  UP_TO_DATE_CONDITION,
  type Cluster,
  type ConditionInput,
  type KubeadmControlPlane,
  type Machine,
} from '@capi/api';
import type { Client, ReconcileLogger, Result } from '@capi/controller-runtime';
import { isNotFound, refOf } from '@capi/controller-runtime';
import type { ControlPlaneObservation } from './control-plane-view';
import { isUpdatingInPlace } from './decide';
import { deleteMachine, type MachineIo } from './machines';
import {
  DELETE_REQUEUE_AFTER_MS,
  getCandidatesForEtcdLeadership,
  hasKcpPreTerminateHook,
  type EtcdLeader,
  type PreTerminateDecision,
  type PreTerminateInput,
} from './pre-terminate';
import type { WorkloadCluster, WorkloadClusterProvider } from './workload-cluster';

const nameOf = (m: Machine) => `${m.metadata.namespace}/${m.metadata.name}`;

/** Removes KCP's pre-terminate hook from the Machine (a merge patch; nothing to do without it). */
export async function removePreTerminateHook(client: Client, machine: Machine, log?: ReconcileLogger): Promise<void> {
  if (!hasKcpPreTerminateHook(machine)) return;
  log?.log(`Removing pre-terminate hook from control plane Machine ${nameOf(machine)}`);
  try {
    await client.patch(refOf(machine), 'merge', {
      metadata: { annotations: { [KCP_PRE_TERMINATE_HOOK_CLEANUP_ANNOTATION]: null } },
    });
  } catch (e) {
    throw new Error(
      `failed to remove pre-terminate hook from control plane Machine ${nameOf(machine)}: ${(e as Error).message}`,
      {
        cause: e,
      },
    );
  }
  delete machine.metadata.annotations?.[KCP_PRE_TERMINATE_HOOK_CLEANUP_ANNOTATION];
}

/**
 * Upstream forwardEtcdLeadership: when the deleting Machine's member leads, tries the candidates in order until one
 * takes the leadership. With the leader known (`leader`), a follower is left alone and no candidate is an error, as
 * upstream; without it (undefined: not read), `WorkloadCluster.forwardEtcdLeadership` tells whether the member leads
 * (it does nothing otherwise), and with no candidate it is asked with none: it must refuse only when the member leads.
 */
export async function forwardEtcdLeadership(
  wc: WorkloadCluster,
  deleting: Machine,
  candidates: readonly Machine[],
  log: ReconcileLogger,
  leader?: EtcdLeader | null,
): Promise<void> {
  if (leader === null) throw new Error('unable to move etcd leadership, failed to detect etcd leader');
  // Not provisioned: the etcd member name (the Node name) is not known.
  const member = deleting.status?.nodeRef?.name;
  if (!member) return;
  // kubeadm names the member after the Node.
  if (leader && leader.name !== member) return;
  if (candidates.length === 0) {
    const none = 'unable to move etcd leadership, no candidate machines for etcd leadership found';
    if (leader) throw new Error(none);
    try {
      await wc.forwardEtcdLeadership(deleting, undefined);
      return;
    } catch (e) {
      throw new Error(none, { cause: e });
    }
  }
  for (const candidate of candidates) {
    try {
      await wc.forwardEtcdLeadership(deleting, candidate);
      log.log(`Moved etcd leadership (if ${nameOf(deleting)} led) to ${nameOf(candidate)}`);
      return;
    } catch (e) {
      log.error(
        `Failed to move etcd leadership from ${nameOf(deleting)} to ${nameOf(candidate)}: ${(e as Error).message}`,
      );
    }
  }
  throw new Error('failed to move etcd leadership');
}

/**
 * Carries out a pre-terminate decision. Undefined when there is nothing to do (the reconcile goes on); else the result
 * the reconcile ends with. Errors are thrown (the reconcile fails and is retried).
 */
export async function reconcilePreTerminateHook(
  deps: { client: Client; workloads: WorkloadClusterProvider; log: ReconcileLogger },
  cluster: Cluster,
  decision: PreTerminateDecision,
): Promise<Result | undefined> {
  const requeue = { requeueAfterMs: DELETE_REQUEUE_AFTER_MS };
  switch (decision.type) {
    case 'none':
      return undefined;
    case 'error':
      throw new Error(decision.message);
    case 'wait':
      deps.log.log(`waiting before running the pre-terminate hook: ${decision.why}`);
      return requeue;
    case 'removeHook':
      await removePreTerminateHook(deps.client, decision.machine, deps.log);
      deps.log.log(`Waiting for Machine ${nameOf(decision.machine)} to be deleted (${decision.why})`);
      return requeue;
    case 'removeEtcdMember': {
      const { machine } = decision;
      let wc: WorkloadCluster;
      try {
        wc = await deps.workloads.forCluster({ namespace: cluster.metadata.namespace!, name: cluster.metadata.name! });
      } catch (e) {
        throw new Error(
          `failed to remove etcd member for deleting Machine ${nameOf(machine)}: failed to create client to workload cluster: ${(e as Error).message}`,
          { cause: e },
        );
      }
      // In a scale down or remediation the leadership should have moved already; again in case the Machine became
      // leader since, or was deleted another way (e.g. kubectl delete machine).
      await forwardEtcdLeadership(wc, machine, decision.candidates, deps.log, decision.etcdLeader);
      // Removing the member shuts down etcd and the kube-apiserver on the Machine.
      if (decision.member) {
        try {
          await wc.removeEtcdMemberForMachine(machine);
        } catch (e) {
          throw new Error(
            `failed to remove etcd member for deleting Machine ${nameOf(machine)}: ${(e as Error).message}`,
            {
              cause: e,
            },
          );
        }
        deps.log.log(`removed etcd member ${decision.member.name} of Machine ${nameOf(machine)}`);
      }
      await removePreTerminateHook(deps.client, machine, deps.log);
      deps.log.log(`Waiting for Machine ${nameOf(machine)} to be deleted`);
      return requeue;
    }
  }
}

/**
 * KCP deletion (upstream reconcileDelete): every Machine loses KCP's hook first — etcd leadership cannot be forwarded
 * when all members go — then the ones not deleting yet are deleted. Errors are collected and thrown together.
 */
export async function deleteControlPlaneMachines(io: MachineIo, machines: readonly Machine[]): Promise<void> {
  const errors: string[] = [];
  for (const machine of machines) {
    try {
      await removePreTerminateHook(io.client, machine);
    } catch (e) {
      if (!isNotFound((e as Error).cause)) errors.push((e as Error).message);
      continue;
    }
    if (machine.metadata.deletionTimestamp) continue;
    try {
      await deleteMachine(io, machine);
    } catch (e) {
      errors.push(`failed to delete control plane Machine ${nameOf(machine)}: ${(e as Error).message}`);
    }
  }
  if (errors.length) throw new Error(errors.join('; '));
}

/**
 * The decision's input from this reconcile's observation: each Machine with the health conditions just computed and
 * its UpToDate (upstream sets both in memory before reconcilePreTerminateHook reads them).
 */
export function preTerminateInput(kcp: KubeadmControlPlane, observed: ControlPlaneObservation): PreTerminateInput {
  const machines = observed.view.map(({ machine, upToDate }) => {
    const computed: ConditionInput[] = [
      ...(observed.machineHealth.get(machine.metadata.name ?? '') ?? []),
      { type: UP_TO_DATE_CONDITION, status: upToDate && !isUpdatingInPlace(machine) ? 'True' : 'False', reason: '' },
    ];
    const types = new Set(computed.map((c) => c.type));
    const conditions = [...(machine.status?.conditions ?? []).filter((c) => !types.has(c.type)), ...computed];
    return { ...machine, status: { ...(machine.status ?? {}), conditions } } as Machine;
  });
  return {
    kcp,
    machines,
    etcdManaged: observed.etcdManaged,
    nodesError: observed.nodesError,
    etcdMembers: observed.etcdMembers,
    etcdAlarms: observed.etcdAlarms,
    // Read with the members (so known whenever they are); undefined when etcd could not be read.
    etcdLeader: observed.etcdLeader,
  };
}

/**
 * Before KCP deletes a control-plane Machine (upstream scale.go scaleDownControlPlane, remediation.go): with etcd
 * managed by KCP, its member hands the leadership over first, so that removing it later (the kcp-cleanup hook) does
 * not cost an election. Fails without the Nodes, the workload cluster or the etcd leader, as upstream.
 */
export async function forwardEtcdLeadershipBeforeDelete(
  kcp: KubeadmControlPlane,
  observed: ControlPlaneObservation,
  machine: Machine,
  log: ReconcileLogger,
): Promise<void> {
  if (!observed.etcdManaged) return;
  if (observed.nodesError !== undefined) throw new Error(`unable to forward etcd leadership: ${observed.nodesError}`);
  if (!observed.workload) throw new Error('failed to create client to workload cluster');
  const { machines } = preTerminateInput(kcp, observed);
  const candidates = getCandidatesForEtcdLeadership(machines, machine);
  await forwardEtcdLeadership(observed.workload, machine, candidates, log, observed.etcdLeader ?? null);
}
