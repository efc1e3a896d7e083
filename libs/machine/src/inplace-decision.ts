// The Machine controller's in-place phase as pure decisions (upstream reconcileInPlaceUpdate in
// core/reconcilers/machine/machine_controller_inplace_update.go).
// The reconciler gathers InPlaceState, asks decideInPlaceStep what to do, executes it, then maps the outcome of an
// UpdateMachine call with decideAfterUpdateMachine. Nothing here does I/O.
import { IN_PLACE_UPDATE_FAILED_REASON, IN_PLACE_UPDATING_REASON } from '@capi/api';

export interface InPlaceState {
  /** InPlaceUpdates feature gate. */
  gateEnabled: boolean;
  /** Machine carries update-in-progress. */
  inProgress: boolean;
  /** UpdateMachine is in the Machine's pending-hooks. */
  pending: boolean;
  infrastructureProvisioned: boolean;
  bootstrapDataSecretCreated: boolean;
  hasNodeRef: boolean;
  infraMachineFound: boolean;
  infraMachineMarked: boolean;
  /**
   * The Machine has a bootstrap config object (upstream s.bootstrapConfig != nil): referenced and found, or referenced
   * and unreadable. A referenced one that is not found counts as none, as upstream.
   */
  hasBootstrapConfig: boolean;
  bootstrapConfigMarked: boolean;
  /** A pending "call again later" from the hook retry cache. */
  retry?: { remainingMs: number; message: string };
}

export type InPlaceAction =
  | { type: 'Nothing'; why: 'GateDisabled' | 'NotUpdating' }
  /** pending without update-in-progress: remove markers everywhere, then mark the hook done. */
  | { type: 'CleanupOrphan' }
  | { type: 'WaitForOwner' }
  | { type: 'WaitForPreconditions'; missing: string[] }
  | { type: 'FailInfraMachineMissing' }
  | { type: 'WaitForMarkers'; missing: string[] }
  | { type: 'WaitForRetry'; remainingMs: number; message: string }
  | { type: 'CallUpdateMachine' };

/**
 * What to do next in the in-place phase (the branches of upstream reconcileInPlaceUpdate and callUpdateMachineHook).
 */
export function decideInPlaceStep(s: InPlaceState): InPlaceAction {
  if (!s.gateEnabled) return { type: 'Nothing', why: 'GateDisabled' };
  if (!s.inProgress) return s.pending ? { type: 'CleanupOrphan' } : { type: 'Nothing', why: 'NotUpdating' };
  if (!s.pending) return { type: 'WaitForOwner' };
  const missing: string[] = [];
  if (!s.infrastructureProvisioned) missing.push('status.initialization.infrastructureProvisioned');
  if (!s.bootstrapDataSecretCreated) missing.push('status.initialization.bootstrapDataSecretCreated');
  if (!s.hasNodeRef) missing.push('status.nodeRef');
  if (missing.length > 0) return { type: 'WaitForPreconditions', missing };
  if (!s.infraMachineFound) return { type: 'FailInfraMachineMissing' };
  const unmarked: string[] = [];
  if (!s.infraMachineMarked) unmarked.push('InfraMachine');
  if (s.hasBootstrapConfig && !s.bootstrapConfigMarked) unmarked.push('BootstrapConfig');
  if (unmarked.length > 0) return { type: 'WaitForMarkers', missing: unmarked };
  if (s.retry && s.retry.remainingMs > 0)
    return { type: 'WaitForRetry', remainingMs: s.retry.remainingMs, message: s.retry.message };
  return { type: 'CallUpdateMachine' };
}

export type UpdateMachineOutcome =
  | { type: 'Failed'; error: unknown }
  | { type: 'InProgress'; retryAfterSeconds: number; message: string }
  | { type: 'Completed'; message: string };

/** Classifies the (aggregated) UpdateMachine result: an error, retry later (lowest non-zero retryAfterSeconds), or done. */
export function decideAfterUpdateMachine(
  result: { error: unknown } | { retryAfterSeconds?: number; message?: string },
): UpdateMachineOutcome {
  if ('error' in result) return { type: 'Failed', error: result.error };
  const retry = result.retryAfterSeconds ?? 0;
  if (retry > 0) return { type: 'InProgress', retryAfterSeconds: retry, message: result.message ?? '' };
  return { type: 'Completed', message: result.message ?? '' };
}

export const INFRA_MACHINE_NOT_FOUND_MESSAGE = 'In-place update not possible: InfraMachine not found';
export const UPDATE_MACHINE_FAILED_MESSAGE = 'UpdateMachine hook failed: please check controller logs for errors';

export const inProgressMessage = (extensionMessage: string): string =>
  extensionMessage ? `In-place update in progress: ${extensionMessage}` : 'In-place update in progress';

/** The Updating condition's reason/message the phase reports (undefined: let the status code decide). */
export interface UpdatingReport {
  reason: string;
  message: string;
}

export function updatingReportFor(action: InPlaceAction | UpdateMachineOutcome): UpdatingReport | undefined {
  switch (action.type) {
    case 'FailInfraMachineMissing':
      return { reason: IN_PLACE_UPDATE_FAILED_REASON, message: INFRA_MACHINE_NOT_FOUND_MESSAGE };
    case 'Failed':
      return { reason: IN_PLACE_UPDATE_FAILED_REASON, message: UPDATE_MACHINE_FAILED_MESSAGE };
    case 'WaitForRetry':
      return { reason: IN_PLACE_UPDATING_REASON, message: inProgressMessage(action.message) };
    case 'InProgress':
      return { reason: IN_PLACE_UPDATING_REASON, message: inProgressMessage(action.message) };
    default:
      return undefined;
  }
}
