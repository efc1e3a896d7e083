// In-place moves between MachineSets (spec §7.4), as pure decisions: which Machines a MachineSet counts, whether an
// old MS may move Machines to the new one, which Machines it moves or deletes, and the one-write move patch.
import {
  ACKNOWLEDGED_MOVE_ANNOTATION,
  HEALTH_CHECK_SUCCEEDED_CONDITION,
  MACHINE_SET_NAME_LABEL,
  MOVE_MACHINES_TO_MACHINESET_ANNOTATION,
  OWNER_REMEDIATED_CONDITION,
  PENDING_ACKNOWLEDGE_MOVE_ANNOTATION,
  RECEIVE_MACHINES_FROM_MACHINESETS_ANNOTATION,
  UPDATE_IN_PROGRESS_ANNOTATION,
  getCondition,
  isFalse,
  isUpdateInProgress,
  parseCommaList,
  type Machine,
  type MachineSet,
} from '@capi/api';
import type { OwnerReference } from '@capi/controller-runtime';
import { sortByDeletePriority, type DeletePriorityFunc } from './deletion-order';
import { formatLabelValue, machineSetOwnerRef } from './desired';

export interface MachineClassification {
  /** Machines the MS treats as its replicas (counted, synced, deleted when surplus). */
  counted: Machine[];
  /** Moved here but not yet acknowledged by the MachineDeployment: ignored entirely. */
  unacknowledged: Machine[];
  /** Moved here and acknowledged: their in-place update must be started. Also part of `counted`. */
  toStartUpdate: Machine[];
}

export function classifyMachines(ms: MachineSet, machines: readonly Machine[]): MachineClassification {
  const acknowledged = new Set(parseCommaList(ms.metadata.annotations?.[ACKNOWLEDGED_MOVE_ANNOTATION]));
  const out: MachineClassification = { counted: [], unacknowledged: [], toStartUpdate: [] };
  for (const m of machines) {
    if (m.metadata.annotations?.[PENDING_ACKNOWLEDGE_MOVE_ANNOTATION] === undefined) {
      out.counted.push(m);
    } else if (acknowledged.has(m.metadata.name ?? '')) {
      out.counted.push(m);
      out.toStartUpdate.push(m);
    } else {
      out.unacknowledged.push(m);
    }
  }
  return out;
}

export type HandshakeResult = { ok: true; target: MachineSet } | { ok: false; reason: string };

/**
 * The two-way handshake: the old MS names the target in move-machines-to-machineset and the target, existing and not
 * deleting, lists the old MS in receive-machines-from-machinesets.
 */
export function checkMoveHandshake(oldMS: MachineSet, target: MachineSet | undefined): HandshakeResult {
  const targetName = oldMS.metadata.annotations?.[MOVE_MACHINES_TO_MACHINESET_ANNOTATION];
  if (!targetName) return { ok: false, reason: 'MachineSet has no move-machines-to-machineset annotation' };
  if (oldMS.metadata.deletionTimestamp) return { ok: false, reason: 'MachineSet is being deleted' };
  if (!target || target.metadata.name !== targetName) return { ok: false, reason: `target MachineSet ${targetName} does not exist` };
  if (target.metadata.deletionTimestamp) return { ok: false, reason: `target MachineSet ${targetName} is being deleted` };
  const accepted = parseCommaList(target.metadata.annotations?.[RECEIVE_MACHINES_FROM_MACHINESETS_ANNOTATION]);
  if (!accepted.includes(oldMS.metadata.name ?? '')) {
    return { ok: false, reason: `target MachineSet ${targetName} does not accept Machines from ${oldMS.metadata.name}` };
  }
  return { ok: true, target };
}

/** Deleting, already updating, unhealthy or remediation-marked Machines are never moved (they are deleted instead). */
export function isMovable(machine: Machine): boolean {
  if (machine.metadata.deletionTimestamp) return false;
  if (isUpdateInProgress(machine)) return false;
  if (isFalse(machine, HEALTH_CHECK_SUCCEEDED_CONDITION)) return false;
  if (getCondition(machine, OWNER_REMEDIATED_CONDITION)) return false;
  return true;
}

export interface ScaleDownPlan {
  toMove: Machine[];
  toDelete: Machine[];
}

/**
 * Picks `count` Machines in deletion order; with a move target, movable ones are moved and the others deleted.
 * Machines already deleting are picked first and "deleted" again (a no-op) so they count as going away.
 */
export function planScaleDown(machines: readonly Machine[], count: number, priority: DeletePriorityFunc, canMove: boolean): ScaleDownPlan {
  const plan: ScaleDownPlan = { toMove: [], toDelete: [] };
  if (count <= 0) return plan;
  for (const m of sortByDeletePriority(machines, priority).slice(0, count)) {
    if (canMove && isMovable(m)) plan.toMove.push(m);
    else plan.toDelete.push(m);
  }
  return plan;
}

/** Labels a MachineSet selects on (matchLabels only: that is what the MachineDeployment generates). */
function selectorLabels(ms: MachineSet): Record<string, string> {
  return { ...(ms.spec.selector.matchLabels ?? {}) };
}

export interface MoveMergePatch {
  metadata: {
    resourceVersion?: string;
    labels: Record<string, string | null>;
    annotations: Record<string, string>;
    ownerReferences: OwnerReference[];
  };
}

/**
 * One merge patch moving the Machine: old selector labels replaced by the new MS's (set-name too), the controller
 * ownerReference pointing to the new MS, and the pending-acknowledge-move + update-in-progress markers.
 * The resourceVersion makes the write fail on a concurrent change instead of moving a stale Machine.
 */
export function movePatch(machine: Machine, oldMS: MachineSet, newMS: MachineSet): MoveMergePatch {
  const labels: Record<string, string | null> = {};
  const current = machine.metadata.labels ?? {};
  const next = { ...selectorLabels(newMS), [MACHINE_SET_NAME_LABEL]: formatLabelValue(newMS.metadata.name ?? '') };
  for (const key of Object.keys(selectorLabels(oldMS))) if (!(key in next) && key in current) labels[key] = null;
  for (const [k, v] of Object.entries(next)) if (current[k] !== v) labels[k] = v;
  const ownerReferences = (machine.metadata.ownerReferences ?? []).filter((r) => !r.controller);
  ownerReferences.push(machineSetOwnerRef(newMS, true));
  return {
    metadata: {
      ...(machine.metadata.resourceVersion ? { resourceVersion: machine.metadata.resourceVersion } : {}),
      labels,
      annotations: { [PENDING_ACKNOWLEDGE_MOVE_ANNOTATION]: '', [UPDATE_IN_PROGRESS_ANNOTATION]: '' },
      ownerReferences,
    },
  };
}
