// In-place moves between MachineSets (upstream core/reconcilers/machineset/machineset_controller.go
// triggerInPlaceUpdate, syncReplicas, startMoveMachines), as pure decisions: which moved Machines start their update,
// how many Machines a MachineSet creates or removes, whether an old MS may move Machines to the new one, which Machines
// it moves or deletes, and the one-write move patch.
import {
  ACKNOWLEDGED_MOVE_ANNOTATION,
  MACHINE_SET_NAME_LABEL,
  MACHINE_TEMPLATE_HASH_LABEL,
  MOVE_MACHINES_TO_MACHINESET_ANNOTATION,
  PENDING_ACKNOWLEDGE_MOVE_ANNOTATION,
  RECEIVE_MACHINES_FROM_MACHINESETS_ANNOTATION,
  UPDATE_IN_PROGRESS_ANNOTATION,
  isPending,
  isUpdateInProgress,
  parseCommaList,
  type Machine,
  type MachineSet,
} from '@capi/api';
import type { OwnerReference } from '@capi/apimachinery';
import { IN_PLACE_UPDATERS_ANNOTATION } from '@capi/inplace';
import { machinesToDeletePrioritized, sortByDeletePriority, type DeletePriorityFunc } from './deletion-order';
import { formatLabelValue, machineSetOwnerRef } from './desired';
import { isUnhealthyAndOwnerRemediated } from './remediation';

const hasAnnotation = (obj: { metadata: { annotations?: Record<string, string> } }, key: string) =>
  obj.metadata.annotations?.[key] !== undefined;

export const isPendingAcknowledgeMove = (m: Machine): boolean => hasAnnotation(m, PENDING_ACKNOWLEDGE_MOVE_ANNOTATION);

/** The MS still accepts Machines moved from other MachineSets (a non-empty receive-machines-from-machinesets). */
export const isReceivingMachines = (ms: MachineSet): boolean =>
  !!ms.metadata.annotations?.[RECEIVE_MACHINES_FROM_MACHINESETS_ANNOTATION];

/**
 * Whether this MS starts the in-place update of a Machine now. Only Machines marked update-in-progress without a
 * pending UpdateMachine qualify. A moved Machine still pending acknowledgement waits for the MachineDeployment to list
 * it in acknowledged-move, unless the MS no longer receives Machines (e.g. the MD spec changed again): then the
 * pending-acknowledge-move is dropped and the update starts like for any other Machine.
 */
export function shouldStartInPlaceUpdate(ms: MachineSet, machine: Machine): boolean {
  if (!hasAnnotation(machine, UPDATE_IN_PROGRESS_ANNOTATION) || isPending('UpdateMachine', machine)) return false;
  if (!isPendingAcknowledgeMove(machine) || !isReceivingMachines(ms)) return true;
  return parseCommaList(ms.metadata.annotations?.[ACKNOWLEDGED_MOVE_ANNOTATION]).includes(machine.metadata.name ?? '');
}

export function machinesToStartInPlaceUpdate(ms: MachineSet, machines: readonly Machine[]): Machine[] {
  return machines.filter((m) => shouldStartInPlaceUpdate(ms, m));
}

/**
 * Machines to create (> 0) or to remove by deletion or move (< 0). Every Machine the MS controls counts, except that a
 * receiving MS does not remove Machines for moved ones still pending acknowledgement: spec.replicas does not include
 * them yet, and aligning to it would delete Machines that must be kept.
 */
export function replicaDelta(ms: MachineSet, machines: readonly Machine[]): number {
  const desired = ms.spec.replicas ?? 0;
  if (machines.length <= desired) return desired - machines.length;
  const notAcknowledged = isReceivingMachines(ms) ? machines.filter(isPendingAcknowledgeMove).length : 0;
  return Math.min(0, desired - (machines.length - notAcknowledged));
}

/** A move or in-place start that could not be done now; `reason` shows on the MS condition, the reconcile retries. */
export class MoveError extends Error {
  constructor(
    message: string,
    readonly reason: 'MoveHandshakeFailed' | 'MoveFailed' | 'InPlaceUpdateStartFailed',
  ) {
    super(message);
    this.name = 'MoveError';
  }
}

export type HandshakeResult = { ok: true; target: MachineSet } | { ok: false; reason: string };

/**
 * The two-way handshake: the old MS names the target in move-machines-to-machineset and the target, existing and not
 * deleting, lists the old MS in receive-machines-from-machinesets. A failed handshake is a reason to wait (the
 * MachineDeployment has not finished writing both sides), never to delete instead.
 */
export function checkMoveHandshake(oldMS: MachineSet, target: MachineSet | undefined): HandshakeResult {
  const targetName = oldMS.metadata.annotations?.[MOVE_MACHINES_TO_MACHINESET_ANNOTATION];
  if (!targetName) return { ok: false, reason: 'MachineSet has no move-machines-to-machineset annotation' };
  if (oldMS.metadata.deletionTimestamp) return { ok: false, reason: 'MachineSet is being deleted' };
  if (!target || target.metadata.name !== targetName)
    return { ok: false, reason: `target MachineSet ${targetName} does not exist` };
  if (target.metadata.deletionTimestamp)
    return { ok: false, reason: `target MachineSet ${targetName} is being deleted` };
  const accepted = parseCommaList(target.metadata.annotations?.[RECEIVE_MACHINES_FROM_MACHINESETS_ANNOTATION]);
  if (!accepted.includes(oldMS.metadata.name ?? '')) {
    return {
      ok: false,
      reason: `MachineSet ${oldMS.metadata.name} is set to move replicas to ${targetName}, but ${targetName} only accepts Machines from ${accepted.join(',')}`,
    };
  }
  return { ok: true, target };
}

/**
 * Why Machines cannot be moved to `target` although the handshake holds: upstream startMoveMachines gives moved Machines
 * the target's machine-template-hash label and refuses a target without one (not created by a MachineDeployment).
 */
export function moveTargetProblem(target: MachineSet): string | undefined {
  if (target.metadata.labels?.[MACHINE_TEMPLATE_HASH_LABEL] !== undefined) return undefined;
  return `MachineSet ${target.metadata.name} does not have the ${MACHINE_TEMPLATE_HASH_LABEL} label`;
}

export interface MovePlan {
  toMove: Machine[];
  /** Unhealthy Machines MHC asked to remediate: deleted instead of moved (the new MS creates their replacements). */
  toDelete: Machine[];
}

/**
 * Up to `count` Machines in deletion order, as upstream's startMoveMachines walks them: unhealthy + OwnerRemediated
 * ones are deleted, deleting ones count as going away, Machines already updating in place (including moved ones not
 * yet acknowledged) and Machines without a Node are skipped without counting, the others are moved (delete-machine
 * annotated ones too: the new MS honours the annotation when it scales down).
 */
export function planMoves(machines: readonly Machine[], count: number, priority: DeletePriorityFunc): MovePlan {
  const plan: MovePlan = { toMove: [], toDelete: [] };
  let left = count;
  for (const m of sortByDeletePriority(machines, priority)) {
    if (left <= 0) break;
    if (isUnhealthyAndOwnerRemediated(m) && !m.metadata.deletionTimestamp) {
      left--;
      plan.toDelete.push(m);
      continue;
    }
    if (m.metadata.deletionTimestamp) {
      left--;
      continue;
    }
    if (isUpdateInProgress(m) || !m.status?.nodeRef?.name) continue;
    left--;
    plan.toMove.push(m);
  }
  return plan;
}

/** Plain scale-down: the first `count` Machines in deletion order; those already deleting are waited for. */
export function planDeletions(machines: readonly Machine[], count: number, priority: DeletePriorityFunc): Machine[] {
  return machinesToDeletePrioritized(machines, count, priority).filter((m) => !m.metadata.deletionTimestamp);
}

/** Labels a MachineSet selects on (matchLabels only: that is what the MachineDeployment generates). */
function selectorLabels(ms: MachineSet): Record<string, string> {
  return { ...(ms.spec.selector.matchLabels ?? {}) };
}

export interface MoveMergePatch {
  metadata: {
    labels: Record<string, string | null>;
    annotations: Record<string, string | null>;
    ownerReferences: OwnerReference[];
  };
}

/**
 * One merge patch moving the Machine: old selector labels replaced by the new MS's (set-name too), the controller
 * ownerReference pointing to the new MS, and the pending-acknowledge-move + update-in-progress markers. Not guarded by
 * a resourceVersion, as upstream's startMoveMachines (client.MergeFrom without the optimistic lock): a concurrent
 * write to the Machine (its own status, the Machine controller's) is no reason to refuse the move.
 */
export function movePatch(machine: Machine, oldMS: MachineSet, newMS: MachineSet): MoveMergePatch {
  const labels: Record<string, string | null> = {};
  const current = machine.metadata.labels ?? {};
  const next = { ...selectorLabels(newMS), [MACHINE_SET_NAME_LABEL]: formatLabelValue(newMS.metadata.name ?? '') };
  for (const key of Object.keys(selectorLabels(oldMS))) if (!(key in next) && key in current) labels[key] = null;
  for (const [k, v] of Object.entries(next)) if (current[k] !== v) labels[k] = v;
  const ownerReferences = (machine.metadata.ownerReferences ?? []).filter((r) => !r.controller);
  ownerReferences.push(machineSetOwnerRef(newMS, true));
  const annotations: Record<string, string | null> = {
    [PENDING_ACKNOWLEDGE_MOVE_ANNOTATION]: '',
    [UPDATE_IN_PROGRESS_ANNOTATION]: '',
  };
  // The updaters that accepted the change travel with the Machine (composed updaters; see @capi/inplace updaters).
  const updaters = oldMS.metadata.annotations?.[IN_PLACE_UPDATERS_ANNOTATION];
  if (updaters) annotations[IN_PLACE_UPDATERS_ANNOTATION] = updaters;
  else if (machine.metadata.annotations?.[IN_PLACE_UPDATERS_ANNOTATION] !== undefined)
    annotations[IN_PLACE_UPDATERS_ANNOTATION] = null;
  return {
    metadata: {
      labels,
      annotations,
      ownerReferences,
    },
  };
}
