// The remediation step of a KCP reconcile (upstream remediation.go reconcileUnhealthyMachines) and the Machine
// creation that completes a remediation: reads the decision of remediation.ts and writes it.
import { KCP_REMEDIATION_IN_PROGRESS_ANNOTATION, type KubeadmControlPlane, type Machine } from '@capi/api';
import type { PassiveClock } from '@capi/apimachinery';
import type { ReconcileLogger } from '@capi/controller-runtime';
import type { ControlPlaneMachine } from './decide';
import { createMachine, deferUntilMachineCached, deleteMachine, type MachineIo } from './machines';
import {
  decideRemediation,
  formatRemediationData,
  MACHINE_CANNOT_BE_REMEDIATED_REASON,
  MACHINE_REMEDIATION_INTERNAL_ERROR_REASON,
  MACHINE_REMEDIATION_MACHINE_DELETING_REASON,
} from './remediation';
import { removeOwnerRemediated, setRemediationInProgress, writeOwnerRemediated } from './remediation-io';

export interface RemediationStep {
  io: MachineIo;
  log: ReconcileLogger;
  clock: PassiveClock;
  /** Moves etcd leadership away from the Machine before it is deleted (upstream remediation.go); throws if it cannot. */
  forwardEtcdLeadership?: (machine: Machine) => Promise<void>;
}

/**
 * Cleans up OwnerRemediated on Machines healthy again, then remediates at most one Machine. `deleted` when it deleted
 * one (the reconcile ends there, the replacement comes from a later scale up); `recheck` when a Machine waits for
 * remediation (Node readiness is not watched).
 */
export async function reconcileUnhealthyMachines(
  step: RemediationStep,
  kcp: KubeadmControlPlane,
  view: ControlPlaneMachine[],
): Promise<{ deleted?: boolean; recheck?: boolean }> {
  const { io, log, clock } = step;
  const decision = decideRemediation({ kcp, machines: view, now: new Date(clock.now()) });
  const byName = (n: string) => view.find((m) => m.machine.metadata.name === n)!.machine;
  for (const name of decision.cleanup) await removeOwnerRemediated(io, byName(name));
  if (decision.clearStaleAnnotation) await setRemediationInProgress(io, kcp, null);
  const action = decision.action;
  switch (action.type) {
    case 'none':
      return {};
    case 'wait':
      log.log(`Machine ${action.machine} needs remediation, waiting: ${action.why}`);
      return { recheck: true };
    case 'block':
      log.log(
        `Machine ${action.machine} needs remediation, skipping: ${action.condition.message ?? action.condition.reason}`,
      );
      await writeOwnerRemediated(io, byName(action.machine), action.condition, clock);
      return { recheck: true };
    case 'remediate': {
      const machine = byName(action.machine);
      try {
        await step.forwardEtcdLeadership?.(machine);
      } catch (e) {
        await writeOwnerRemediated(
          io,
          machine,
          { reason: MACHINE_CANNOT_BE_REMEDIATED_REASON, message: (e as Error).message },
          clock,
        ).catch(() => undefined);
        throw e;
      }
      // Reported before the delete: once deleted the Machine may be gone before a later write.
      await writeOwnerRemediated(io, machine, { reason: MACHINE_REMEDIATION_MACHINE_DELETING_REASON }, clock);
      try {
        // upstream remediation.go: the next reconcile waits for the cache to show the Machine deleting
        deferUntilMachineCached(io, kcp, await deleteMachine(io, machine));
      } catch (e) {
        await writeOwnerRemediated(
          io,
          machine,
          { reason: MACHINE_REMEDIATION_INTERNAL_ERROR_REASON, message: 'Please check controller logs for errors' },
          clock,
        ).catch(() => undefined);
        throw new Error(
          `failed to delete unhealthy Machine ${machine.metadata.namespace}/${machine.metadata.name}: ${(e as Error).message}`,
          { cause: e },
        );
      }
      log.log(`remediating unhealthy Machine ${action.machine} (deleted; retry ${action.data.retryCount})`);
      await setRemediationInProgress(io, kcp, formatRemediationData(action.data));
      return { deleted: true };
    }
  }
}

/**
 * Creates a Machine; while a remediation is in progress it is the replacement: it carries the retry data
 * (remediation-for) and its creation completes the remediation (the KCP annotation is removed).
 */
export async function createReplacementOrMachine(
  step: Omit<RemediationStep, 'clock'>,
  kcp: KubeadmControlPlane,
  clusterName: string,
  template: Parameters<typeof createMachine>[3],
  isJoin: boolean,
  failureDomain?: string,
): Promise<Machine> {
  const remediationFor = kcp.metadata.annotations?.[KCP_REMEDIATION_IN_PROGRESS_ANNOTATION];
  const m = await createMachine(step.io, kcp, clusterName, template, isJoin, failureDomain, remediationFor);
  if (remediationFor !== undefined) {
    await setRemediationInProgress(step.io, kcp, null);
    step.log.log(`Machine ${m.metadata.name} replaces the remediated Machine`);
  }
  return m;
}
