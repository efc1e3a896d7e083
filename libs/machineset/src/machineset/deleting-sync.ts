// What syncMachines still propagates to a deleting Machine (upstream core/reconcilers/machineset/machineset_controller.go
// syncMachines): only the fields that matter for tearing it down, as one merge patch.
import { jsonEqual } from '@capi/apimachinery';
import type { Machine, MachineSet } from '@capi/api';

/** Upstream core/webhooks/admission DefaultMachineNodeDeletionTimeoutSeconds: unset means 10 s. */
export const DEFAULT_NODE_DELETION_TIMEOUT_SECONDS = 10;

const TOP_LEVEL = ['readinessGates', 'minReadySeconds', 'taints'] as const;
const TIMEOUTS = ['nodeDrainTimeoutSeconds', 'nodeVolumeDetachTimeoutSeconds', 'nodeDeletionTimeoutSeconds'] as const;

/** `desired` where it differs from `current` (null removes), or nothing. */
function diff(target: Record<string, unknown>, key: string, current: unknown, desired: unknown): void {
  if (desired === undefined) {
    if (current !== undefined) target[key] = null;
  } else if (!jsonEqual(current, desired)) target[key] = structuredClone(desired);
}

/**
 * The merge patch giving a deleting Machine the template's readiness gates, minReadySeconds, taints and deletion
 * timeouts (nodeDeletionTimeoutSeconds defaulted as on create, so an unset template value is no change), or undefined
 * when it has them: a Machine stuck draining follows a shorter timeout set on the MachineSet.
 */
export function deletingMachineSyncPatch(ms: MachineSet, m: Machine): { spec: Record<string, unknown> } | undefined {
  const want = ms.spec.template.spec;
  const spec: Record<string, unknown> = {};
  for (const field of TOP_LEVEL) diff(spec, field, m.spec[field], want[field]);
  const deletion: Record<string, unknown> = {};
  const desiredTimeouts: Record<string, number | undefined> = {
    ...want.deletion,
    nodeDeletionTimeoutSeconds: want.deletion?.nodeDeletionTimeoutSeconds ?? DEFAULT_NODE_DELETION_TIMEOUT_SECONDS,
  };
  for (const field of TIMEOUTS) diff(deletion, field, m.spec.deletion?.[field], desiredTimeouts[field]);
  if (Object.keys(deletion).length > 0) spec.deletion = deletion;
  return Object.keys(spec).length > 0 ? { spec } : undefined;
}
