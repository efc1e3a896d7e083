// In-place vs replaced, counted per rollout owner (a KubeadmControlPlane or a MachineDeployment) from the Machine
// events the view receives:
// - in place: a Machine that was updating in place (upstream's update-in-progress annotation or a pending
//   UpdateMachine hook, @capi/api isUpdateInProgress) and then is no longer, with the same UID and not being deleted.
//   Each completed in-place update counts once (a Machine updated twice counts twice).
// - replaced: a Machine of the owner deleted, paired with a Machine with a new UID created for the owner while it had
//   outdated (UpToDate=False) or deleting Machines, or after such a deletion: one count per pair, when the pair is
//   complete. A rollout without surge deletes first and creates after; one with surge creates first (a Machine of the
//   new MachineSet, the KCP's scale-up) and deletes after: both pair up. The deletion half is any deletion, not only
//   of an outdated Machine, because the owner may delete a Machine before the Machine controller has written its
//   UpToDate=False. Creating a cluster, scaling up an up-to-date owner and deleting a Cluster count nothing; scaling an
//   owner down and later up again counts the new Machines as replacements.
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
  const base = {
    namespace: m.metadata.namespace ?? '',
    cluster: labels[CLUSTER_NAME_LABEL] ?? m.spec?.clusterName ?? '',
  };
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
  deleting: boolean;
}

/** Halves of replacements not paired yet, per owner. */
interface Unpaired {
  /** New Machines created while the owner had outdated ones. */
  created: number;
  /** Machines deleted before their replacement was created. */
  deleted: number;
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
  private readonly unpaired = new Map<string, Unpaired>();
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
      deleting: !!m.metadata.deletionTimestamp,
    };
    this.machines.set(uid, next);
    if (baseline) return false;
    if (!prev) return this.created(key, uid, series, now);
    if (!prev.deleting && next.deleting) return this.deleted(key, series, now);
    if (prev.updating && !next.updating && !next.deleting) return this.add(series, now, 'inPlace');
    return false;
  }

  /** A Machine was deleted (gone from the API); returns true when a count changed. */
  forget(m: Machine, now: number): boolean {
    const uid = m.metadata.uid;
    const prev = uid ? this.machines.get(uid) : undefined;
    if (!uid || !prev) return false;
    this.machines.delete(uid);
    const owner = rolloutOwnerOf(m);
    if (prev.deleting || !owner) return false;
    return this.deleted(prev.owner, this.seriesOf(owner, now), now);
  }

  private unpairedOf(key: string): Unpaired {
    let u = this.unpaired.get(key);
    if (!u) this.unpaired.set(key, (u = { created: 0, deleted: 0 }));
    return u;
  }

  private created(key: string, uid: string, series: OwnerSeries, now: number): boolean {
    const u = this.unpairedOf(key);
    if (u.deleted > 0) {
      u.deleted--;
      return this.add(series, now, 'replaced');
    }
    const rollingOut = [...this.machines].some(([x, s]) => x !== uid && s.owner === key && (s.outdated || s.deleting));
    if (rollingOut) u.created++;
    return false;
  }

  private deleted(key: string, series: OwnerSeries, now: number): boolean {
    const u = this.unpairedOf(key);
    if (u.created > 0) {
      u.created--;
      return this.add(series, now, 'replaced');
    }
    u.deleted++;
    return false;
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
