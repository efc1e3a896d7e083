// Scale steps of a KCP reconcile: preflight checks, which hold the KCP's next reconcile back while they fail
// (upstream controlplane/kubeadm/reconcilers/kubeadmcontrolplane/preflight.go), and scale down (scale.go).
import type { KubeadmControlPlane, Machine } from '@capi/api';
import type { ReconcileLogger, Result } from '@capi/controller-runtime';
import type { BlockedRollout } from '@capi/inplace';
import type { ControlPlaneObservation } from './control-plane-view';
import { preflightChecks, type PreflightCheckResults, type PreflightResult } from './decide';
import { machineNamingTemplateErrors } from './machine-naming';
import { deferUntilMachineCached, deleteMachine, type MachineIo } from './machines';
import { forwardEtcdLeadershipBeforeDelete } from './pre-terminate-io';

/** What a step of the reconcile ended with: a requeue and, when waiting, why (for ScalingUp/ScalingDown). */
export interface StepOutcome {
  result?: Result;
  preflight?: PreflightCheckResults;
  scalingUpBlockers?: string[];
  /** InPlaceOnly policy: the Machine held back this reconcile; empty: the rollout step went on (or none is left). */
  blocked?: BlockedRollout[];
}

export interface ScaleStep {
  io: MachineIo;
  log: ReconcileLogger;
  /** KcpControllerOptions.preflightRequeueMs and preflightDeferMs. */
  preflightRequeueMs: number;
  preflightDeferMs: number;
}

/** preflightChecks; when they fail, the KCP's next reconcile is held back (upstream preflight.go). */
export function preflight(
  step: ScaleStep,
  kcp: KubeadmControlPlane,
  ...args: Parameters<typeof preflightChecks>
): PreflightResult {
  const pre = preflightChecks(...args);
  if (!pre.ok) step.io.controller?.deferNextReconcileForObject(kcp, step.preflightDeferMs);
  return pre;
}

export function waitingForPreflight(step: ScaleStep, messages: string[], results: PreflightCheckResults): StepOutcome {
  step.log.log(`waiting for control plane to pass preflight checks: ${messages.join('; ')}`);
  return { result: { requeueAfterMs: step.preflightRequeueMs }, preflight: results };
}

/** Upstream's webhook rejects a bad spec.machineNaming.template; here it blocks creating Machines (ScalingUp says why). */
export function invalidMachineNaming(step: ScaleStep, kcp: KubeadmControlPlane): StepOutcome | undefined {
  const errors = machineNamingTemplateErrors(kcp);
  if (errors.length === 0) return undefined;
  step.log.log(`cannot create Machines: ${errors.join('; ')}`);
  return { result: { requeueAfterMs: step.preflightRequeueMs }, scalingUpBlockers: errors };
}

/** Upstream scale.go scaleDownControlPlane: preflight, etcd leadership away from the Machine, delete it. */
export async function scaleDown(
  step: ScaleStep,
  kcp: KubeadmControlPlane,
  machine: Machine,
  observed: ControlPlaneObservation,
): Promise<StepOutcome> {
  const pre = preflight(step, kcp, observed.view, machine.metadata.name, observed.etcdManaged);
  if (!pre.ok) return waitingForPreflight(step, pre.messages, pre.results);
  await forwardEtcdLeadershipBeforeDelete(kcp, observed, machine, step.log);
  // The next reconcile waits until the cache shows the Machine deleting.
  deferUntilMachineCached(step.io, kcp, await deleteMachine(step.io, machine));
  step.log.log(`deleted control plane Machine ${machine.metadata.namespace}/${machine.metadata.name}`);
  return {};
}
