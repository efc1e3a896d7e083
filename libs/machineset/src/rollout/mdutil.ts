// Pure MachineDeployment helpers used by the rollout planner (upstream: machinedeployment/mdutil/util.go).
import { compareMachineTemplates, semanticEqual } from '@capi/api';
import {
  IntOrString,
  MachineDeploymentLike,
  MachineSetLike,
  MachineTemplateSpecLike,
  RolloutAnnotations,
  RolloutStrategyType,
  nameOf,
} from './types';

/** Raised for input the planner cannot work with (the controller turns it into a condition/reason). */
export class RolloutPlanError extends Error {
  constructor(
    message: string,
    readonly reason: string = 'InvalidRolloutInput',
  ) {
    super(message);
    this.name = 'RolloutPlanError';
  }
}

// Upstream webhook defaults for a RollingUpdate strategy without explicit values.
const DEFAULT_MAX_SURGE: IntOrString = 1;
const DEFAULT_MAX_UNAVAILABLE: IntOrString = 0;

export function strategyType(md: MachineDeploymentLike): RolloutStrategyType {
  return md.spec.rollout?.strategy?.type ?? 'RollingUpdate';
}

export function isRollingUpdate(md: MachineDeploymentLike): boolean {
  return strategyType(md) === 'RollingUpdate';
}

/**
 * Resolves an int-or-percent against a total, like k8s intstr.GetScaledValueFromIntOrPercent:
 * percentages round up when roundUp is set (maxSurge) and down otherwise (maxUnavailable).
 */
export function scaledValueFromIntOrPercent(value: IntOrString, total: number, roundUp: boolean): number {
  if (typeof value === 'number') {
    if (!Number.isInteger(value))
      throw new RolloutPlanError(`invalid value for IntOrString: ${value} is not an integer`);
    return value;
  }
  const match = /^(-?\d+)%$/.exec(value);
  if (!match) {
    throw new RolloutPlanError(`invalid value for IntOrString: invalid type: string is not a percentage: "${value}"`);
  }
  const scaled = (Number(match[1]) * total) / 100;
  return roundUp ? Math.ceil(scaled) : Math.floor(scaled);
}

/** Resolves maxSurge/maxUnavailable together; when both resolve to 0, maxUnavailable becomes 1. */
export function resolveFenceposts(
  maxSurge: IntOrString | undefined,
  maxUnavailable: IntOrString | undefined,
  desired: number,
): { surge: number; unavailable: number } {
  const surge = scaledValueFromIntOrPercent(maxSurge ?? DEFAULT_MAX_SURGE, desired, true);
  let unavailable = scaledValueFromIntOrPercent(maxUnavailable ?? DEFAULT_MAX_UNAVAILABLE, desired, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return { surge, unavailable };
}

function rollingUpdateParams(md: MachineDeploymentLike) {
  return md.spec.rollout?.strategy?.rollingUpdate ?? {};
}

export function maxUnavailable(md: MachineDeploymentLike): number {
  const replicas = md.spec.replicas ?? 0;
  if (!isRollingUpdate(md) || replicas === 0) return 0;
  const p = rollingUpdateParams(md);
  return Math.min(resolveFenceposts(p.maxSurge, p.maxUnavailable, replicas).unavailable, replicas);
}

export function maxSurge(md: MachineDeploymentLike): number {
  if (!isRollingUpdate(md)) return 0;
  const p = rollingUpdateParams(md);
  return resolveFenceposts(p.maxSurge, p.maxUnavailable, md.spec.replicas ?? 0).surge;
}

export const specReplicas = (ms: MachineSetLike): number => ms.spec.replicas ?? 0;
export const statusReplicas = (ms: MachineSetLike): number => ms.status?.replicas ?? 0;
export const availableReplicas = (ms: MachineSetLike): number => ms.status?.availableReplicas ?? 0;
export const upToDateReplicas = (ms: MachineSetLike): number => ms.status?.upToDateReplicas ?? 0;

const sum = (mss: MachineSetLike[], f: (ms: MachineSetLike) => number) => mss.reduce((t, ms) => t + f(ms), 0);
export const totalSpecReplicas = (mss: MachineSetLike[]) => sum(mss, specReplicas);
export const totalStatusReplicas = (mss: MachineSetLike[]) => sum(mss, statusReplicas);
export const totalAvailableReplicas = (mss: MachineSetLike[]) => sum(mss, availableReplicas);
/** Sum of max(spec, status) replicas: guards md.spec.replicas + maxSurge during scale up and down. */
export const totalMachineSetsReplicaSum = (mss: MachineSetLike[]) =>
  sum(mss, (ms) => Math.max(specReplicas(ms), statusReplicas(ms)));

function timestamp(ms: MachineSetLike): number {
  const t = ms.metadata.creationTimestamp;
  return t ? Date.parse(t) : 0;
}

/** Oldest first, name as tie breaker. */
export function compareByCreationTimestamp(a: MachineSetLike, b: MachineSetLike): number {
  const d = timestamp(a) - timestamp(b);
  if (d !== 0) return d;
  return nameOf(a) < nameOf(b) ? -1 : nameOf(a) > nameOf(b) ? 1 : 0;
}

/** Most spec.replicas first, then oldest, then name. */
export function compareByDecreasingReplicas(a: MachineSetLike, b: MachineSetLike): number {
  const d = specReplicas(b) - specReplicas(a);
  return d !== 0 ? d : compareByCreationTimestamp(a, b);
}

/**
 * Number of replicas the new MS should have and the note explaining it (upstream NewMSNewReplicas).
 */
export function newMSNewReplicas(
  md: MachineDeploymentLike,
  allMSs: MachineSetLike[],
  newMSReplicas: number,
): { replicas: number; note: string } {
  const mdReplicas = md.spec.replicas ?? 0;
  const current = totalMachineSetsReplicaSum(allMSs);
  if (strategyType(md) === 'RollingUpdate') {
    const surge = scaledValueFromIntOrPercent(rollingUpdateParams(md).maxSurge ?? DEFAULT_MAX_SURGE, mdReplicas, true);
    const maxTotal = mdReplicas + surge;
    if (current >= maxTotal) {
      return {
        replicas: newMSReplicas,
        note: `${current} current Machines >= ${mdReplicas} MachineDeployment spec.replicas + ${surge} maxSurge`,
      };
    }
    const scaleUp = Math.min(maxTotal - current, mdReplicas - newMSReplicas);
    return {
      replicas: newMSReplicas + scaleUp,
      note: `${current} current Machines < ${mdReplicas} MachineDeployment spec.replicas + ${surge} maxSurge`,
    };
  }
  if (strategyType(md) === 'OnDelete') {
    if (current >= mdReplicas) {
      return {
        replicas: newMSReplicas,
        note: `${current} current Machines >= ${mdReplicas} MachineDeployment spec.replicas`,
      };
    }
    return {
      replicas: newMSReplicas + mdReplicas - current,
      note: `${current} current Machines < ${mdReplicas} MachineDeployment spec.replicas`,
    };
  }
  throw new RolloutPlanError(
    `failed to compute replicas: deployment strategy ${String(strategyType(md))} isn't supported`,
    'InvalidStrategy',
  );
}

// The template comparison is shared with the Machine controller's UpToDate condition (@capi/api).
export { semanticEqual };

export interface UpToDateResult {
  logMessages: string[];
  eligibleForInPlaceUpdate: boolean;
}

/** Upstream MachineTemplateUpToDate (see compareMachineTemplates in @capi/api). */
export function machineTemplateUpToDate(
  current: MachineTemplateSpecLike,
  desired: MachineTemplateSpecLike,
): { upToDate: boolean; result: UpToDateResult } {
  const { upToDate, logMessages } = compareMachineTemplates(current, desired);
  // An up-to-date MachineSet needs no in-place update.
  return { upToDate, result: { logMessages, eligibleForInPlaceUpdate: !upToDate } };
}

export interface NewAndOldMachineSets {
  newMS?: MachineSetLike;
  oldMSs: MachineSetLike[];
  upToDateResults: Map<string, UpToDateResult>;
  createReason: string;
}

/**
 * Splits MachineSets into the one matching the MD template (most replicas wins among candidates) and the old ones.
 * Honors spec.rollout.after: once expired, only MachineSets created afterwards can be the new one.
 */
export function findNewAndOldMachineSets(
  md: MachineDeploymentLike,
  msList: MachineSetLike[],
  now: Date,
): NewAndOldMachineSets {
  const upToDateResults = new Map<string, UpToDateResult>();
  if (msList.length === 0)
    return { oldMSs: [], upToDateResults, createReason: 'no MachineSets exist for the MachineDeployment' };
  const rolloutAfter = md.spec.rollout?.after ? Date.parse(md.spec.rollout.after) : undefined;
  const rolloutAfterExpired = rolloutAfter !== undefined && rolloutAfter < now.getTime();
  const sorted = [...msList].sort(compareByDecreasingReplicas);
  const candidates: MachineSetLike[] = [];
  const oldMSs: MachineSetLike[] = [];
  const diffs: string[] = [];
  for (const ms of sorted) {
    const { upToDate, result } = machineTemplateUpToDate(ms.spec.template, md.spec.template);
    upToDateResults.set(nameOf(ms), result);
    if (upToDate) {
      candidates.push(ms);
      continue;
    }
    oldMSs.push(ms);
    if (rolloutAfterExpired && timestamp(ms) < rolloutAfter) {
      result.eligibleForInPlaceUpdate = false;
      result.logMessages.push('MachineDeployment spec.rolloutAfter expired');
    }
    diffs.push(`MachineSet ${nameOf(ms)} needs rollout: ${result.logMessages.join(', ')}`);
  }
  if (candidates.length === 0) {
    return {
      oldMSs,
      upToDateResults,
      createReason: `couldn't find MachineSet matching MachineDeployment spec template: ${diffs.join('; ')}`,
    };
  }
  const discard = (ms: MachineSetLike) => {
    oldMSs.push(ms);
    upToDateResults.set(nameOf(ms), { logMessages: [], eligibleForInPlaceUpdate: false });
  };
  if (!rolloutAfterExpired) {
    candidates.slice(1).forEach(discard);
    return { newMS: candidates[0], oldMSs, upToDateResults, createReason: '' };
  }
  let newMS: MachineSetLike | undefined;
  for (const ms of candidates) {
    if (!newMS && timestamp(ms) >= (rolloutAfter as number)) newMS = ms;
    else discard(ms);
  }
  if (!newMS) {
    return {
      oldMSs,
      upToDateResults,
      createReason: `spec.rollout.after on MachineDeployment set to ${md.spec.rollout?.after}, no MachineSet has been created afterwards`,
    };
  }
  return { newMS, oldMSs, upToDateResults, createReason: '' };
}

function parseRevision(ms: MachineSetLike): number {
  const v = ms.metadata.annotations?.[RolloutAnnotations.revision];
  if (v === undefined) return 0;
  const n = Number(v);
  if (!/^-?\d+$/.test(v) || !Number.isSafeInteger(n)) {
    throw new RolloutPlanError(`failed to parse revision "${v}" on MachineSet ${nameOf(ms)}`, 'InvalidRevision');
  }
  return n;
}

/** Highest revision among MachineSets; unparsable revisions are skipped (as upstream does, with a log). */
export function maxRevision(mss: MachineSetLike[]): number {
  let max = 0;
  for (const ms of mss) {
    try {
      max = Math.max(max, parseRevision(ms));
    } catch {
      // skipped on purpose
    }
  }
  return max;
}

/**
 * Revision annotations for the new MS: the highest revision across MachineSets, never decreasing it,
 * with the deprecated revision-history annotation carried and extended when the revision changes.
 */
export function computeRevisionAnnotations(
  newMS: MachineSetLike | undefined,
  oldMSs: MachineSetLike[],
): { annotations: Record<string, string>; revision: string } {
  const annotations: Record<string, string> = {};
  const newRevisionInt = maxRevision(oldMSs) + 1;
  let revision = String(newRevisionInt);
  if (newMS) {
    const current = newMS.metadata.annotations?.[RolloutAnnotations.revision];
    if (current !== undefined && newRevisionInt < parseRevision(newMS)) revision = current;
    const history = newMS.metadata.annotations?.[RolloutAnnotations.revisionHistory];
    if (history !== undefined) annotations[RolloutAnnotations.revisionHistory] = history;
    if (current !== undefined && current !== revision) {
      annotations[RolloutAnnotations.revisionHistory] = history ? `${history},${current}` : current;
    }
  }
  annotations[RolloutAnnotations.revision] = revision;
  return { annotations, revision };
}

export function sortAndJoin(names: Iterable<string>): string {
  return [...names].sort().join(',');
}

export function splitList(value: string | undefined): string[] {
  return value ? value.split(',') : [];
}
