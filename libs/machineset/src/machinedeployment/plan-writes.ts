// Turns a rollout plan into the ordered MachineSet applies (pure).
import {
  MOVE_MACHINES_TO_MACHINESET_ANNOTATION,
  RECEIVE_MACHINES_FROM_MACHINESETS_ANNOTATION,
  type MachineSet,
} from '@capi/api';
import { jsonEqual } from '@capi/apimachinery';
import { IN_PLACE_UPDATERS_ANNOTATION } from '@capi/inplace';
import type { RolloutPlan } from '../rollout';
import { machineSetApplyIntent } from './desired-ms';

export interface MachineSetWrite {
  intent: MachineSet;
  /** The MachineSet as read, when it exists. */
  original?: MachineSet;
}

/** Only the fields the MachineDeployment owns: compared to skip applies that would change nothing. */
function ownedView(ms: MachineSet): unknown {
  return {
    labels: ms.metadata.labels ?? {},
    annotations: ms.metadata.annotations ?? {},
    owners: ms.metadata.ownerReferences ?? [],
    spec: ms.spec,
  };
}

/** The updaters that accepted an oldMS -> newMS in-place change; undefined when unknown. */
export type AcceptedUpdaters = (oldMS: MachineSet, newMS: MachineSet) => string[] | undefined;

/**
 * An old MachineSet told to move Machines also carries the updaters that accepted the change (this project's
 * composition of several updaters; the moved Machines get it, so UpdateMachine goes to those only). Unknown (the
 * answer cache was lost, e.g. after a restart): the value already on the MachineSet is kept.
 */
function withAcceptedUpdaters(
  intent: MachineSet,
  original: MachineSet | undefined,
  newMS: MachineSet | undefined,
  accepted?: AcceptedUpdaters,
): void {
  const annotations = intent.metadata.annotations;
  if (!annotations?.[MOVE_MACHINES_TO_MACHINESET_ANNOTATION] || !newMS) return;
  const known = accepted?.(intent, newMS)?.join(',');
  const value = known ?? original?.metadata.annotations?.[IN_PLACE_UPDATERS_ANNOTATION];
  if (value) annotations[IN_PLACE_UPDATERS_ANNOTATION] = value;
}

/**
 * One apply per planned MachineSet whose owned fields change. Ordering keeps the move handshake race free:
 * the new MS accepts (receive-machines-from-machinesets) before any old MS is told to move Machines to it, and old
 * MachineSets stop moving (annotation removed) before the new MS stops accepting.
 */
export function machineSetWrites(
  plan: RolloutPlan,
  current: ReadonlyMap<string, MachineSet>,
  accepted?: AcceptedUpdaters,
): MachineSetWrite[] {
  const writes: MachineSetWrite[] = [];
  const newName = plan.newMS?.metadata.name;
  for (const planned of plan.machineSets as unknown as MachineSet[]) {
    const name = planned.metadata.name ?? '';
    const original = current.get(name);
    const replicas = plan.scaleIntents.get(name) ?? planned.spec.replicas ?? 0;
    const intent = machineSetApplyIntent(planned, replicas);
    withAcceptedUpdaters(intent, original, plan.newMS as unknown as MachineSet | undefined, accepted);
    if (original && jsonEqual(ownedView(intent), ownedView(original))) continue;
    writes.push({ intent, original });
  }
  const newWrite = writes.find((w) => w.intent.metadata.name === newName);
  if (!newWrite) return writes;
  const accepts = !!newWrite.intent.metadata.annotations?.[RECEIVE_MACHINES_FROM_MACHINESETS_ANNOTATION];
  const others = writes.filter((w) => w !== newWrite);
  // Creating the new MS must come first too: old MachineSets may reference it.
  return accepts || !newWrite.original ? [newWrite, ...others] : [...others, newWrite];
}

/** Old MachineSets the plan tells to move Machines (for logs and tests). */
export function movingMachineSets(plan: RolloutPlan): string[] {
  return (plan.oldMSs as unknown as MachineSet[])
    .filter((ms) => ms.metadata.annotations?.[MOVE_MACHINES_TO_MACHINESET_ANNOTATION])
    .map((ms) => ms.metadata.name ?? '');
}

/**
 * Old MachineSets that are fully drained (planned and observed 0 replicas, no Machine left) and can be deleted:
 * without revision history (v1beta2) nothing keeps them; a template reverted later simply gets a new MachineSet.
 */
export function drainedOldMachineSets(
  plan: RolloutPlan,
  current: readonly MachineSet[],
  machines: readonly { metadata: { ownerReferences?: { controller?: boolean; name: string }[] } }[],
): MachineSet[] {
  const newName = plan.newMS?.metadata.name;
  const owners = new Set(
    machines.flatMap((m) => (m.metadata.ownerReferences ?? []).filter((r) => r.controller).map((r) => r.name)),
  );
  return current.filter((ms) => {
    const name = ms.metadata.name ?? '';
    if (name === newName || ms.metadata.deletionTimestamp) return false;
    const planned = plan.scaleIntents.get(name) ?? ms.spec.replicas ?? 0;
    return planned === 0 && (ms.spec.replicas ?? 0) === 0 && (ms.status?.replicas ?? 0) === 0 && !owners.has(name);
  });
}
