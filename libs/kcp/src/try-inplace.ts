// One rollout step in place (upstream reconcilers/kubeadmcontrolplane/inplace.go tryInPlaceUpdate): preflight for the
// whole control plane; if it fails only because of the candidate, fall back to scaling the candidate down; otherwise
// ask the extensions (CanUpdateMachine) and trigger the update, or fall back to scale down when they cannot.
import type { ControlPlaneMachine, PreflightCheckResults, PreflightResult } from './decide';
import { preflightChecks } from './decide';
import type { CanUpdateResult } from './inplace';

export interface TryInPlaceDeps {
  /** Upstream preflightChecks(controlPlane, excludeFor...). Defaults to decide.ts preflightChecks over `machines`. */
  preflight?: (ignore?: string) => PreflightResult;
  canUpdateMachine: () => Promise<CanUpdateResult>;
  triggerInPlaceUpdate: (updaters: string[] | undefined) => Promise<void>;
}

export type TryInPlaceOutcome =
  | { type: 'triggered' }
  /** `cannot`: the updaters' answer (absent when the candidate itself fails the preflight checks). */
  | { type: 'fallbackToScaleDown'; reasons?: string[]; cannot?: CanUpdateResult }
  | { type: 'wait'; messages: string[]; results: PreflightCheckResults };

export async function tryInPlaceUpdate(
  machines: readonly ControlPlaneMachine[],
  candidate: string,
  etcdManaged: boolean,
  deps: TryInPlaceDeps,
): Promise<TryInPlaceOutcome> {
  const preflight = deps.preflight ?? ((ignore?: string) => preflightChecks(machines, ignore, etcdManaged));
  const all = preflight();
  if (!all.ok) {
    // The candidate itself is the problem (e.g. unhealthy): a new Machine replaces it instead.
    const withoutCandidate = preflight(candidate);
    if (withoutCandidate.ok) return { type: 'fallbackToScaleDown' };
    // As upstream, the status shows the last check's findings (the one without the candidate).
    return { type: 'wait', messages: all.messages, results: withoutCandidate.results };
  }
  // Errors carry "failed to determine if Machine <name> can be updated in-place" (inplace.ts canUpdateMachine).
  const can = await deps.canUpdateMachine();
  if (!can.canUpdate) return { type: 'fallbackToScaleDown', reasons: can.reasons, cannot: can };
  await deps.triggerInPlaceUpdate(can.updaters);
  return { type: 'triggered' };
}
