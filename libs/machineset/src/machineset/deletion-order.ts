// Which Machines a MachineSet removes first when scaling down (upstream machineset_deletion_order.go).
// The same order picks the Machines an old MachineSet moves to the new one during an in-place rollout.
import {
  DELETE_MACHINE_ANNOTATION,
  HEALTH_CHECK_SUCCEEDED_CONDITION,
  NODE_HEALTHY_CONDITION,
  isFalse,
  isUpdateInProgress,
  type Machine,
  type MachineSetDeletionOrder,
} from '@capi/api';

// Priorities on a 0-100 scale: higher goes first.
export const DeletePriority = {
  mustDelete: 100,
  shouldDeleteFirst: 80,
  shouldDelete: 75,
  betterDelete: 50,
  couldDelete: 20,
  mustNotDelete: 0,
} as const;

const SECONDS_PER_TEN_DAYS = 864000;

export type DeletionOrder = MachineSetDeletionOrder;
export type DeletePriorityFunc = (machine: Machine) => number;

export class UnsupportedDeletionOrderError extends Error {
  readonly reason = 'InvalidDeletionOrder';
  constructor(order: string) {
    super(`Unsupported deletion order ${order}. Must be one of 'Random', 'Newest', or 'Oldest'`);
    this.name = 'UnsupportedDeletionOrderError';
  }
}

/** Without a Node, or with NodeHealthy/HealthCheckSucceeded False, a Machine is preferred for deletion. */
export function isMachineHealthyForDeletion(machine: Machine): boolean {
  if (!machine.status?.nodeRef?.name) return false;
  if (isFalse(machine, NODE_HEALTHY_CONDITION)) return false;
  if (isFalse(machine, HEALTH_CHECK_SUCCEEDED_CONDITION)) return false;
  return true;
}

/** The rules shared by every order; undefined when the order's own tie-breaking applies. */
function commonPriority(machine: Machine): number | undefined {
  // Machines already deleting go first, otherwise more Machines would be deleted while those are still going away.
  if (machine.metadata.deletionTimestamp) return DeletePriority.mustDelete;
  if (machine.metadata.annotations?.[DELETE_MACHINE_ANNOTATION] !== undefined) return DeletePriority.shouldDeleteFirst;
  // Dropping a Machine that is still updating avoids finishing an in-place update that is no longer needed.
  if (isUpdateInProgress(machine)) return DeletePriority.shouldDelete;
  if (!isMachineHealthyForDeletion(machine)) return DeletePriority.betterDelete;
  return undefined;
}

/** Maps the Machine's age onto [0, betterDelete): older Machines get higher priority. */
function agePriority(machine: Machine, now: Date): number {
  const created = machine.metadata.creationTimestamp ? Date.parse(machine.metadata.creationTimestamp) : NaN;
  if (Number.isNaN(created)) return DeletePriority.mustNotDelete;
  const seconds = (now.getTime() - created) / 1000;
  if (seconds < 0) return DeletePriority.mustNotDelete;
  return DeletePriority.betterDelete * (1 - Math.exp(-seconds / SECONDS_PER_TEN_DAYS));
}

export function deletePriorityFunc(order: string | undefined, now: () => Date = () => new Date()): DeletePriorityFunc {
  switch (order ?? '') {
    case '':
    case 'Random':
      return (m) => commonPriority(m) ?? DeletePriority.couldDelete;
    case 'Oldest':
      return (m) => commonPriority(m) ?? agePriority(m, now());
    case 'Newest':
      return (m) => commonPriority(m) ?? DeletePriority.betterDelete - agePriority(m, now());
    default:
      throw new UnsupportedDeletionOrderError(String(order));
  }
}

/** All Machines, highest priority first; equal priorities by name so the order is stable across reconciles. */
export function sortByDeletePriority(machines: readonly Machine[], priority: DeletePriorityFunc): Machine[] {
  const scored = machines.map((m) => ({ m, p: priority(m) }));
  scored.sort((a, b) => (a.p !== b.p ? b.p - a.p : (a.m.metadata.name ?? '') < (b.m.metadata.name ?? '') ? -1 : 1));
  return scored.map((s) => s.m);
}

/** The first `count` Machines to delete (none when count <= 0). */
export function machinesToDeletePrioritized(
  machines: readonly Machine[],
  count: number,
  priority: DeletePriorityFunc,
): Machine[] {
  if (count <= 0) return [];
  return sortByDeletePriority(machines, priority).slice(0, count);
}
