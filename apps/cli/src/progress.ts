// Rollout progress of a MachineDeployment or KubeadmControlPlane, pure: counts, "done", the blocking conditions and
// the line to print. "In place" vs "replaced" is decided by Machine UID: the rollout's start is the moment the command
// started, and a Machine up to date now is "in place" when it existed then (same UID) and was not up to date, and
// "replaced" when it did not exist then.
import { getCondition, isUpdateInProgress, type Condition, type Machine } from '@capi/api';
import { humanDuration } from '@capi/apimachinery';

/** The fields of an MD / KCP this reads (both v1beta2: status counters, observedGeneration, conditions). */
export interface RolloutTarget {
  kind: string;
  metadata: { name?: string; generation?: number; deletionTimestamp?: string };
  spec?: { replicas?: number; paused?: boolean };
  status?: {
    observedGeneration?: number;
    replicas?: number;
    upToDateReplicas?: number;
    availableReplicas?: number;
    readyReplicas?: number;
    conditions?: Condition[];
  };
}

/** What was there when the command started. */
export interface RolloutStart {
  atMs: number;
  /** UID → up to date then. */
  machines: Map<string, boolean>;
  done: number;
}

export interface RolloutProgress {
  desired: number;
  /** Machines up to date now. */
  done: number;
  /** Of `done`: kept (same UID) and brought up to date since the start. */
  inPlace: number;
  /** Of `done`: created since the start. */
  replaced: number;
  /** Desired Machines not up to date yet (desired - done, never negative). */
  waiting: number;
  /** Machines being updated in place right now. */
  updating: number;
  /** Machines beyond the desired count (old ones not deleted yet, surge). */
  extra: number;
}

const upToDate = (m: Machine) => getCondition(m, 'UpToDate')?.status === 'True';
const active = (machines: readonly Machine[]) => machines.filter((m) => !m.metadata.deletionTimestamp);

export function rolloutStart(machines: readonly Machine[], atMs: number): RolloutStart {
  const live = active(machines);
  return {
    atMs,
    machines: new Map(live.map((m) => [m.metadata.uid ?? '', upToDate(m)])),
    done: live.filter((m) => upToDate(m) && !isUpdateInProgress(m)).length,
  };
}

export function rolloutProgress(
  target: RolloutTarget,
  machines: readonly Machine[],
  start: RolloutStart,
): RolloutProgress {
  const desired = target.spec?.replicas ?? 0;
  const live = active(machines);
  const doneMachines = live.filter((m) => upToDate(m) && !isUpdateInProgress(m));
  const kept = (m: Machine) => start.machines.has(m.metadata.uid ?? '');
  return {
    desired,
    done: doneMachines.length,
    inPlace: doneMachines.filter((m) => kept(m) && start.machines.get(m.metadata.uid ?? '') === false).length,
    replaced: doneMachines.filter((m) => !kept(m)).length,
    waiting: Math.max(0, desired - doneMachines.length),
    updating: live.filter(isUpdateInProgress).length,
    extra: Math.max(0, live.length - desired),
  };
}

/**
 * Done as `kubectl rollout status` judges a Deployment, on the v1beta2 counters: the controller has seen the latest
 * spec (observedGeneration), every desired Machine is up to date and available, no other Machine is left, and none is
 * still being updated in place (by the counters and by the Machines themselves).
 */
export function isRolloutDone(target: RolloutTarget, machines: readonly Machine[]): boolean {
  const s = target.status ?? {};
  const desired = target.spec?.replicas ?? 0;
  if ((s.observedGeneration ?? 0) < (target.metadata.generation ?? 0)) return false;
  if ((s.upToDateReplicas ?? 0) !== desired || (s.replicas ?? 0) !== desired || (s.availableReplicas ?? 0) !== desired)
    return false;
  // The Machines as watched too, so the last line printed agrees with "done" even before the status catches up.
  const live = active(machines);
  return live.length === desired && live.every((m) => upToDate(m) && !isUpdateInProgress(m));
}

// Conditions that are bad when True (clusterctl's negativePolarityConditions, internal/util/tree/tree.go); every
// other condition is bad when False. Unknown kinds of conditions (e.g. a policy another controller adds) are read the
// same way, so their False reason and message show up too.
const NEGATIVE_POLARITY = new Set([
  'Paused',
  'Deleting',
  'RollingOut',
  'ScalingUp',
  'ScalingDown',
  'Updating',
  'Remediating',
]);

/** The conditions that explain why a rollout does not finish: "<Type> <Status> <Reason>: <message>" lines. */
export function blockingConditions(target: RolloutTarget, machines: readonly Machine[]): string[] {
  const line = (who: string, c: Condition) =>
    `${who}${c.type}=${c.status} ${c.reason ?? ''}${c.message ? `: ${c.message.replace(/\n+/g, ' ')}` : ''}`.trim();
  const bad = (c: Condition) => (NEGATIVE_POLARITY.has(c.type) ? c.status === 'True' : c.status === 'False');
  const out = (target.status?.conditions ?? [])
    .filter(bad)
    .map((c) => line(`${target.kind} ${target.metadata.name}: `, c));
  if (target.spec?.paused) out.push(`${target.kind} ${target.metadata.name}: spec.paused is true`);
  if ((target.status?.observedGeneration ?? 0) < (target.metadata.generation ?? 0))
    out.push(
      `${target.kind} ${target.metadata.name}: the controller has not seen generation ${target.metadata.generation} (observed ${target.status?.observedGeneration ?? 'none'})`,
    );
  for (const m of active(machines)) {
    if (!isUpdateInProgress(m)) continue;
    const updating = getCondition(m, 'Updating');
    out.push(
      updating
        ? line(`Machine ${m.metadata.name}: `, updating)
        : `Machine ${m.metadata.name}: in-place update in progress`,
    );
  }
  return out;
}

/** ETA from the rate observed since the start; undefined until something got done. */
export function estimateRemainingMs(p: RolloutProgress, start: RolloutStart, nowMs: number): number | undefined {
  const gained = p.done - start.done;
  const elapsed = nowMs - start.atMs;
  if (gained <= 0 || elapsed <= 0 || p.waiting === 0) return p.waiting === 0 ? 0 : undefined;
  return (p.waiting * elapsed) / gained;
}

/** "[########------------] 2/5 up to date (1 in place, 1 replaced), 3 waiting, 1 updating, ETA 1m30s". */
export function formatProgress(p: RolloutProgress, etaMs: number | undefined, barWidth = 20): string {
  const filled = p.desired > 0 ? Math.min(barWidth, Math.round((p.done / p.desired) * barWidth)) : barWidth;
  const bar = `[${'#'.repeat(filled)}${'-'.repeat(barWidth - filled)}]`;
  const parts = [
    `${bar} ${p.done}/${p.desired} up to date (${p.inPlace} in place, ${p.replaced} replaced)`,
    `${p.waiting} waiting`,
  ];
  if (p.updating) parts.push(`${p.updating} updating in place`);
  if (p.extra) parts.push(`${p.extra} to remove`);
  parts.push(`ETA ${etaMs === undefined ? 'unknown' : humanDuration(etaMs)}`);
  return parts.join(', ');
}

/** The part of the progress whose change counts as progress (the stall timer restarts on it). */
export const progressKey = (p: RolloutProgress, target: RolloutTarget): string =>
  JSON.stringify([
    p.done,
    p.inPlace,
    p.replaced,
    p.updating,
    p.extra,
    target.status?.replicas,
    target.status?.upToDateReplicas,
    target.status?.availableReplicas,
  ]);
