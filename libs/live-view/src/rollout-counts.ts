// In-place vs replaced, counted per rollout owner (a KubeadmControlPlane or a MachineDeployment) from the Machine
// events the view receives:
// - in place: a Machine that was updating in place (upstream's update-in-progress annotation or a pending
//   UpdateMachine hook, @capi/api isUpdateInProgress) and then is no longer, with the same UID and not being deleted.
//   Each completed in-place update counts once (a Machine updated twice counts twice).
// - replaced: a Machine with a new UID that appears while another Machine of the same owner is not up to date
//   (UpToDate=False): the rollout created it to take an outdated Machine's place (a Machine of the new MachineSet,
//   or for a KCP the Machine its scale-up creates). Creating a cluster or scaling up an up-to-date owner counts nothing.
// Machines seen before the informer synced are the baseline: they are remembered, not counted.
import {
  isUpdateInProgress,
  MACHINE_CONTROL_PLANE_NAME_LABEL,
  MACHINE_DEPLOYMENT_NAME_LABEL,
  CLUSTER_NAME_LABEL,
  UP_TO_DATE_CONDITION,
  type Condition,
  type Machine,
} from '@capi/api';

export type OwnerKind = 'KubeadmControlPlane' | 'MachineDeployment';

export interface RolloutOwner {
  namespace: string;
  cluster: string;
  kind: OwnerKind;
  name: string;
}

/** Cumulative counts of one owner at time `t` (ms since the epoch). */
export interface CountPoint {
  t: number;
  inPlace: number;
  replaced: number;
}

export interface OwnerSeries {
  owner: RolloutOwner;
  points: CountPoint[];
}

/** The owner whose rollout a Machine belongs to, from the labels KCP and MachineSets put on their Machines. */
export function rolloutOwnerOf(m: Machine): RolloutOwner | undefined {
  const labels = m.metadata.labels ?? {};
  const base = { namespace: m.metadata.namespace ?? '', cluster: labels[CLUSTER_NAME_LABEL] ?? m.spec?.clusterName ?? '' };
  const cp = labels[MACHINE_CONTROL_PLANE_NAME_LABEL];
  if (cp) return { ...base, kind: 'KubeadmControlPlane', name: cp };
  const md = labels[MACHINE_DEPLOYMENT_NAME_LABEL];
  if (md) return { ...base, kind: 'MachineDeployment', name: md };
  return undefined;
}

export const ownerKey = (o: RolloutOwner): string => `${o.namespace}/${o.kind}/${o.name}`;

interface Seen {
  owner: string;
  updating: boolean;
  outdated: boolean;
}

export interface RolloutCounterOptions {
  /** Points kept per owner (the oldest are dropped; the counts are cumulative, so the latest stay right). */
  maxPoints?: number;
  /** Owners kept (the one changed longest ago is dropped first). */
  maxOwners?: number;
}

const upToDateStatus = (m: Machine) =>
  ((m.status?.conditions ?? []) as Condition[]).find((c) => c.type === UP_TO_DATE_CONDITION)?.status;

/** Counts in-place updates and replacements per owner and keeps a bounded time series of them. */
export class RolloutCounter {
  private readonly machines = new Map<string, Seen>();
  private readonly series = new Map<string, OwnerSeries>();
  private readonly maxPoints: number;
  private readonly maxOwners: number;

  constructor(opts: RolloutCounterOptions = {}) {
    this.maxPoints = opts.maxPoints ?? 500;
    this.maxOwners = opts.maxOwners ?? 200;
  }

  /**
   * A Machine was added or changed at `now`; `baseline` (before the informer synced) records it without counting.
   * Returns true when a count changed.
   */
  observe(m: Machine, now: number, baseline = false): boolean {
    const uid = m.metadata.uid;
    const owner = rolloutOwnerOf(m);
    if (!uid || !owner) return false;
    const key = ownerKey(owner);
    const series = this.seriesOf(owner, now);
    const prev = this.machines.get(uid);
    const next: Seen = {
      owner: key,
      updating: isUpdateInProgress(m),
      outdated: upToDateStatus(m) === 'False',
    };
    this.machines.set(uid, next);
    if (baseline) return false;
    if (!prev) {
      const replacing = [...this.machines].some(([u, s]) => u !== uid && s.owner === key && s.outdated);
      return replacing ? this.add(series, now, 'replaced') : false;
    }
    if (prev.updating && !next.updating && !m.metadata.deletionTimestamp) return this.add(series, now, 'inPlace');
    return false;
  }

  /** A Machine was deleted. */
  forget(m: Machine): void {
    if (m.metadata.uid) this.machines.delete(m.metadata.uid);
  }

  /** The series of every owner, oldest owner first (copies). */
  all(): OwnerSeries[] {
    return [...this.series.values()].map((s) => ({ owner: { ...s.owner }, points: s.points.map((p) => ({ ...p })) }));
  }

  private seriesOf(owner: RolloutOwner, now: number): OwnerSeries {
    const key = ownerKey(owner);
    let s = this.series.get(key);
    if (!s) {
      s = { owner, points: [{ t: now, inPlace: 0, replaced: 0 }] };
      this.series.set(key, s);
      if (this.series.size > this.maxOwners) this.dropStalest();
    }
    return s;
  }

  private add(s: OwnerSeries, now: number, what: 'inPlace' | 'replaced'): true {
    const last = s.points[s.points.length - 1];
    s.points.push({ ...last, t: now, [what]: last[what] + 1 });
    if (s.points.length > this.maxPoints) s.points.splice(0, s.points.length - this.maxPoints);
    // Most recently changed last, so the stalest owner is first.
    const key = ownerKey(s.owner);
    this.series.delete(key);
    this.series.set(key, s);
    return true;
  }

  private dropStalest(): void {
    const oldest = this.series.keys().next().value;
    if (oldest !== undefined) this.series.delete(oldest);
  }
}
