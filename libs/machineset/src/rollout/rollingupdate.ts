// RollingUpdate planning steps (upstream: machinedeployment_rollout_rollingupdate.go).
// Written as a generator so the in-place predicate can be answered synchronously or asynchronously by the driver.
import {
  availableReplicas,
  compareByCreationTimestamp,
  RolloutPlanError,
  maxUnavailable,
  newMSNewReplicas,
  sortAndJoin,
  specReplicas,
  splitList,
  statusReplicas,
  totalAvailableReplicas,
  totalSpecReplicas,
  totalStatusReplicas,
  upToDateReplicas,
} from './mdutil';
import { isUpdateInProgress as apiIsUpdateInProgress } from '@capi/api';
import type { RolloutPlanner } from './planner';
import { MachineLike, MachineSetLike, RolloutAnnotations, nameOf } from './types';

export interface InPlaceQuery {
  oldMS: MachineSetLike;
  newMS: MachineSetLike;
}

export function* rollingUpdateSteps(p: RolloutPlanner): Generator<InPlaceQuery, void, boolean> {
  reconcileReplicasPendingAcknowledgeMove(p);
  reconcileNewMachineSet(p);
  reconcileOldMachineSetsRollingUpdate(p);
  yield* reconcileInPlaceUpdateIntent(p);
  reconcileDeadlockBreaker(p);
  holdBackReplacements(p);
}

/** True when the Machine's controller owner is this MachineSet. */
export function isControlledBy(m: MachineLike, ms: MachineSetLike): boolean {
  return (m.metadata.ownerReferences ?? []).some(
    (ref) =>
      ref.controller === true &&
      ref.kind === 'MachineSet' &&
      ref.name === nameOf(ms) &&
      (!ref.uid || !ms.metadata.uid || ref.uid === ms.metadata.uid),
  );
}

/** Updating in place: update-in-progress annotation or a pending UpdateMachine hook (shared @capi/api rule). */
export function isUpdateInProgress(m: MachineLike): boolean {
  return apiIsUpdateInProgress(m);
}

function mustNewMS(p: RolloutPlanner): MachineSetLike {
  if (!p.newMS)
    throw new RolloutPlanError('rollout planner: init must find or create the new MachineSet before planning');
  return p.newMS;
}

/**
 * Counts Machines moved to the newMS (pending acknowledge) into its replicas, once, and records them in the
 * acknowledged-move annotation so the MachineSet controller can start their in-place update.
 */
function reconcileReplicasPendingAcknowledgeMove(p: RolloutPlanner): void {
  if (!p.inPlaceUpdatesEnabled) return;
  const newMS = mustNewMS(p);
  const alreadyAcknowledged = new Set(
    splitList(p.originalMSs.get(nameOf(newMS))?.metadata.annotations?.[RolloutAnnotations.acknowledgedMove]),
  );
  const pending = new Set<string>();
  for (const m of p.machines) {
    if (!isControlledBy(m, newMS)) continue;
    if (m.metadata.annotations?.[RolloutAnnotations.pendingAcknowledgeMove] === undefined) continue;
    if (!alreadyAcknowledged.has(nameOf(m))) p.acknowledgedMachineNames.push(nameOf(m));
    pending.add(nameOf(m));
  }
  if (p.acknowledgedMachineNames.length > 0) {
    newMS.spec.replicas = specReplicas(newMS) + p.acknowledgedMachineNames.length;
    p.addNote(newMS, `acknowledge Machines ${sortAndJoin(pending)} moved from an old MachineSet`);
  }
  newMS.metadata.annotations ??= {};
  if (pending.size > 0) newMS.metadata.annotations[RolloutAnnotations.acknowledgedMove] = sortAndJoin(pending);
}

/** Scales the newMS towards md.spec.replicas within maxSurge; scale down to md.spec.replicas is immediate. */
export function reconcileNewMachineSet(p: RolloutPlanner): void {
  const newMS = mustNewMS(p);
  const mdReplicas = p.md.spec.replicas ?? 0;
  const current = specReplicas(newMS);
  if (current === mdReplicas) return;
  if (current > mdReplicas) {
    p.addNote(newMS, 'scale down to align MachineSet spec.replicas to MachineDeployment spec.replicas');
    p.scaleIntents.set(nameOf(newMS), mdReplicas);
    return;
  }
  const { replicas, note } = newMSNewReplicas(p.md, [...p.oldMSs, newMS], current);
  if (replicas !== current) {
    p.addNote(newMS, note);
    p.scaleIntents.set(nameOf(newMS), replicas);
  }
}

/** Scales oldMSs down as far as maxUnavailable allows, unavailable replicas first, oldest MS first. */
function reconcileOldMachineSetsRollingUpdate(p: RolloutPlanner): void {
  const newMS = mustNewMS(p);
  const allMSs = [...p.oldMSs, newMS];
  if (totalSpecReplicas(p.oldMSs) === 0) return;

  const minAvailable = Math.max((p.md.spec.replicas ?? 0) - maxUnavailable(p.md), 0);
  const totalSpec = totalSpecReplicas(allMSs);
  let totalAvailable = totalAvailableReplicas(allMSs);

  // Scale downs still pending (from earlier reconciles or this one) may further reduce availability.
  let totalPendingScaleDown = 0;
  for (const ms of allMSs) {
    let intent = specReplicas(ms);
    const v = p.scaleIntents.get(nameOf(ms));
    if (v !== undefined) intent = Math.min(intent, v);
    if (intent < statusReplicas(ms)) totalPendingScaleDown += Math.max(statusReplicas(ms) - intent, 0);
  }
  // Unavailable machines on the newMS slow the rollout down.
  const newMSUnavailable = Math.max(specReplicas(newMS) - availableReplicas(newMS), 0);
  let totalScaleDown = Math.max(totalSpec - totalPendingScaleDown - minAvailable - newMSUnavailable, 0);
  if (totalScaleDown <= 0) return;

  p.oldMSs.sort(compareByCreationTimestamp);
  // InPlaceOnly policy: the scale down budget goes to MachineSets that may scale down first (holdBackReplacements
  // takes it back from the blocked ones); a stable sort, so upstream's order stays otherwise.
  const blocked = p.options.replacementsBlockedFor;
  if (blocked?.size) p.oldMSs.sort((x, y) => Number(blocked.has(nameOf(x))) - Number(blocked.has(nameOf(y))));
  [totalScaleDown, totalAvailable] = scaleDownOldMSs(p, totalScaleDown, totalAvailable, minAvailable, true);
  scaleDownOldMSs(p, totalScaleDown, totalAvailable, minAvailable, false);
}

function scaleDownOldMSs(
  p: RolloutPlanner,
  totalScaleDownCount: number,
  totalAvailable: number,
  minAvailable: number,
  onlyUnavailable: boolean,
): [number, number] {
  for (const oldMS of p.oldMSs) {
    if (totalScaleDownCount <= 0) break;
    const replicas = p.scaleIntents.get(nameOf(oldMS)) ?? specReplicas(oldMS);
    if (replicas <= 0) continue;
    const before = totalAvailable;
    const maxScaleDown = onlyUnavailable ? Math.max(replicas - availableReplicas(oldMS), 0) : replicas;
    let scaleDown = Math.min(maxScaleDown, totalScaleDownCount);
    if (scaleDown === 0) continue;

    // Assume the worst case: the MS controller deletes available replicas first.
    if (availableReplicas(oldMS) > 0) {
      const newSpec = Math.max(replicas - scaleDown, 0);
      let existingToDelete = Math.max(statusReplicas(oldMS) - newSpec, 0);
      if (existingToDelete > 0) {
        if (totalAvailable - minAvailable < existingToDelete) {
          const maxDeletable = Math.max(totalAvailable - minAvailable, 0);
          const revisited = Math.min(statusReplicas(oldMS) - maxDeletable, replicas);
          scaleDown = Math.max(replicas - revisited, 0);
          existingToDelete = Math.max(statusReplicas(oldMS) - revisited, 0);
        }
        totalAvailable -= Math.min(availableReplicas(oldMS), existingToDelete);
      }
    }
    if (scaleDown > 0) {
      if (before === totalAvailable) {
        p.addNote(
          oldMS,
          'scale down to align to existing Machines or scale down by removing unavailable replicas (and no available replicas exist on the MachineSet)',
        );
      } else {
        p.addNote(oldMS, `${before} available replicas > ${minAvailable} minimum available replicas`);
      }
      p.scaleIntents.set(nameOf(oldMS), Math.max(replicas - scaleDown, 0));
      totalScaleDownCount = Math.max(totalScaleDownCount - scaleDown, 0);
    }
  }
  return [totalScaleDownCount, totalAvailable];
}

/**
 * Turns scale downs of oldMSs that can be updated in place into moves to the newMS, and drops maxSurge usage
 * (keeping at most one surge machine as buffer) so in-place updates take priority over creating machines.
 */
function* reconcileInPlaceUpdateIntent(p: RolloutPlanner): Generator<InPlaceQuery, void, boolean> {
  if (!p.inPlaceUpdatesEnabled) return;
  const newMS = mustNewMS(p);
  if (specReplicas(newMS) >= (p.md.spec.replicas ?? 0)) return;

  const candidates = new Set<string>();
  for (const oldMS of p.oldMSs) {
    if (statusReplicas(oldMS) <= 0) continue;
    if (!p.upToDateResults.get(nameOf(oldMS))?.eligibleForInPlaceUpdate) continue;
    const canUpdate: boolean = yield { oldMS, newMS };
    if (!canUpdate) continue;
    oldMS.metadata.annotations ??= {};
    p.addNote(oldMS, `should scale down by moving Machines to MachineSet ${nameOf(newMS)}`);
    oldMS.metadata.annotations[RolloutAnnotations.moveMachinesToMachineSet] = nameOf(newMS);
    candidates.add(nameOf(oldMS));
  }
  if (candidates.size === 0) return;

  newMS.metadata.annotations ??= {};
  newMS.metadata.annotations[RolloutAnnotations.receiveMachinesFromMachineSets] = sortAndJoin(candidates);

  const intent = p.scaleIntents.get(nameOf(newMS));
  if (intent === undefined || intent <= specReplicas(newMS)) return;
  const scaleUpCount = intent - specReplicas(newMS);
  const surgeUsed = maxSurgeUsedByScaleUp(
    p.md.spec.replicas ?? 0,
    totalReplicasWithIntents([...p.oldMSs, newMS], p.scaleIntents),
    scaleUpCount,
  );
  if (surgeUsed <= 0) return;
  const withoutSurge = scaleUpCount - surgeUsed;

  let newScaleUpCount = withoutSurge;
  if (newScaleUpCount === 0 && !scalingOrInPlaceUpdateInProgress(p)) {
    newScaleUpCount = 1;
    p.addNote(newMS, 'surge 1 allowed to create availability for in-place updates');
  } else {
    p.addNote(newMS, `surge ${surgeUsed} dropped to prioritize in-place updates`);
  }
  if (newScaleUpCount === 0) p.scaleIntents.delete(nameOf(newMS));
  else p.scaleIntents.set(nameOf(newMS), specReplicas(newMS) + newScaleUpCount);
}

/**
 * The target number of replicas of the MachineSets: each counts as max(its scale intent, or spec.replicas without one,
 * status.replicas), as upstream reconcileInPlaceUpdateIntent (mimicking TotalMachineSetsReplicaSum with the intents):
 * an old MS scaling down counts with its intent unless it still has more Machines.
 */
export function totalReplicasWithIntents(machineSets: MachineSetLike[], intents: ReadonlyMap<string, number>): number {
  let total = 0;
  for (const ms of machineSets) total += Math.max(intents.get(nameOf(ms)) ?? specReplicas(ms), statusReplicas(ms));
  return total;
}

/**
 * The part of a newMS scale up that takes the MachineSets above md.spec.replicas, i.e. the surge it really uses
 * (targetReplicas from totalReplicasWithIntents, the scale up included). Counting it as min(scaleUp, maxSurge) would
 * also drop replicas that only bring the MD back to spec.replicas (e.g. after a scale up of the MD mid-rollout).
 */
export function maxSurgeUsedByScaleUp(mdReplicas: number, targetReplicas: number, scaleUpCount: number): number {
  const exceedingReplicas = Math.max(targetReplicas - mdReplicas, 0);
  return Math.max(Math.min(scaleUpCount, exceedingReplicas), 0);
}

function scalingOrInPlaceUpdateInProgress(p: RolloutPlanner): boolean {
  const newMS = mustNewMS(p);
  if (specReplicas(newMS) !== statusReplicas(newMS)) return true;
  for (const oldMS of p.oldMSs) {
    if (specReplicas(oldMS) < statusReplicas(oldMS)) return true;
    const intent = p.scaleIntents.get(nameOf(oldMS));
    if (intent !== undefined && intent < specReplicas(oldMS)) return true;
  }
  if (specReplicas(newMS) !== upToDateReplicas(newMS)) return true;
  for (const m of p.machines) if (isUpdateInProgress(m)) p.updatingMachineNames.push(nameOf(m));
  if (p.updatingMachineNames.length > 0) return true;
  // Wait for updated machines to be available again, otherwise maxSurge would be used to create a machine.
  return specReplicas(newMS) !== availableReplicas(newMS);
}

/** Breaks the deadlock where unavailable replicas on oldMSs block both scale up and scale down. */
function reconcileDeadlockBreaker(p: RolloutPlanner): void {
  const newMS = mustNewMS(p);
  const oldActual = totalStatusReplicas(p.oldMSs);
  if (oldActual === 0) return;
  if (oldActual === totalAvailableReplicas(p.oldMSs)) return;
  for (const ms of [...p.oldMSs, newMS]) {
    if (specReplicas(ms) !== statusReplicas(ms)) return;
    if (p.scaleIntents.has(nameOf(ms))) return;
  }
  if (availableReplicas(newMS) !== statusReplicas(newMS)) return;
  for (const oldMS of p.oldMSs) {
    if (availableReplicas(oldMS) === statusReplicas(oldMS) || specReplicas(oldMS) === 0) continue;
    p.addNote(newMS, 'scaling down by 1 to unblock rollout stuck due to unavailable Machine on oldMS');
    p.scaleIntents.set(nameOf(oldMS), Math.max(specReplicas(oldMS) - 1, 0));
    return;
  }
}

/**
 * The in-place-only policy (this project's extension, after the upstream steps so those stay as upstream plans them):
 * an old MachineSet in replacementsBlockedFor keeps its replicas unless the MachineSets hold more than
 * md.spec.replicas (a scale down of the MD is not a replacement), and the new MachineSet grows only into room the old
 * ones leave (no surge while something is held back).
 */
export function holdBackReplacements(p: RolloutPlanner): void {
  const blocked = p.options.replacementsBlockedFor;
  if (!blocked || blocked.size === 0) return;
  const newMS = mustNewMS(p);
  const mdReplicas = p.md.spec.replicas ?? 0;
  const planned = (ms: MachineSetLike) => p.scaleIntents.get(nameOf(ms)) ?? specReplicas(ms);
  // The new MachineSet counts without its scale up: that only gets the room the old ones leave (capped below).
  let total = p.oldMSs.reduce((t, ms) => t + planned(ms), Math.min(planned(newMS), specReplicas(newMS)));
  for (const oldMS of p.oldMSs) {
    if (!blocked.has(nameOf(oldMS))) continue;
    const current = specReplicas(oldMS);
    const intent = planned(oldMS);
    if (intent >= current) continue;
    total += current - intent;
    const scaleDown = Math.min(current - intent, Math.max(total - mdReplicas, 0));
    total -= scaleDown;
    if (scaleDown === 0) p.scaleIntents.delete(nameOf(oldMS));
    else p.scaleIntents.set(nameOf(oldMS), current - scaleDown);
    p.addNote(oldMS, 'replacement held back by the InPlaceOnly rollout policy');
  }
  const oldReplicas = p.oldMSs.reduce((t, ms) => t + planned(ms), 0);
  const cap = Math.max(specReplicas(newMS), mdReplicas - oldReplicas);
  if (planned(newMS) <= cap) return;
  if (cap === specReplicas(newMS)) p.scaleIntents.delete(nameOf(newMS));
  else p.scaleIntents.set(nameOf(newMS), cap);
  p.addNote(newMS, 'scale up held back by the InPlaceOnly rollout policy');
}
