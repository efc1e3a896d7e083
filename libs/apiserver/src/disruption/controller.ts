// The disruption controller: what kube-controller-manager's pkg/controller/disruption does, inside the server. It keeps
// every PodDisruptionBudget's status up to date when PDBs or Pods of its namespace change, and again when an eviction
// recorded in status.disruptedPods expires.
import { jsonEqual, labelSelectorAsSelector, type KubeObject } from '@capi/apimachinery';
import type { Store, StoreEvent } from '../storage';
import type { Registry, ResourceInfo } from '../server/registry';
import type { Resources } from '../server/resources';
import { StatusError } from '../server/status';
import { scaleOf } from '../server/scale';
import { computePdbStatus, failSafeStatus, type ScaleOf } from './status';

const PDB_RESOURCE = 'policy/poddisruptionbudgets';
const POD_RESOURCE = '/pods';

export class DisruptionController {
  private readonly pending = new Set<string>();
  private scheduled = false;
  private stopped = false;
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly unsubscribe: () => void;
  private idleWaiters: (() => void)[] = [];
  private readonly pdbInfo: ResourceInfo;
  private readonly podInfo: ResourceInfo;

  constructor(
    store: Store,
    private readonly registry: Registry,
    private readonly resources: Resources,
    private readonly now: () => number = Date.now,
    private readonly onError: (e: unknown) => void = () => {},
  ) {
    this.pdbInfo = registry.lookup('policy', 'v1', 'poddisruptionbudgets')!;
    this.podInfo = registry.lookup('', 'v1', 'pods')!;
    this.unsubscribe = store.onAny((ev) => this.onEvent(ev));
    // Budgets written before a restart get their status computed again.
    for (const row of store.list(PDB_RESOURCE, undefined)) this.enqueue(row.data.metadata.namespace);
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe();
    this.timers.forEach(clearTimeout);
    this.timers.clear();
  }

  /** Resolves once every queued namespace has been synced (tests). */
  idle(): Promise<void> {
    if (!this.scheduled) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  private onEvent(ev: StoreEvent): void {
    if (ev.resource === PDB_RESOURCE || ev.resource === POD_RESOURCE) this.enqueue(ev.namespace);
  }

  private enqueue(ns: string): void {
    if (this.stopped) return;
    this.pending.add(ns);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.drain());
    }
  }

  private drain(): void {
    // Each write below re-enqueues its namespace: the loop ends when a pass changes nothing.
    while (this.pending.size && !this.stopped) {
      const ns = this.pending.values().next().value as string;
      this.pending.delete(ns);
      try {
        this.syncNamespace(ns);
      } catch (e) {
        // NotFound / Conflict are races with clients: their events bring the namespace back.
        if (!(e instanceof StatusError && (e.code === 404 || e.code === 409))) this.onError(e);
      }
    }
    this.scheduled = false;
    this.idleWaiters.splice(0).forEach((r) => r());
  }

  private syncNamespace(ns: string): void {
    const pdbs = this.resources.list(this.pdbInfo, ns).items as KubeObject[];
    if (!pdbs.length) return;
    const pods = this.resources.list(this.podInfo, ns).items as KubeObject[];
    const now = new Date(this.now());
    let recheckAt: number | undefined;
    for (const pdb of pdbs) {
      let status: Record<string, unknown>;
      try {
        const selector = labelSelectorAsSelector((pdb.spec as Record<string, any> | undefined)?.selector);
        const result = computePdbStatus(
          pdb,
          pods.filter((p) => selector.matches(p.metadata.labels)),
          now,
          this.scaleOf,
        );
        status = result.status;
        if (result.recheckAt !== undefined && (recheckAt === undefined || result.recheckAt < recheckAt))
          recheckAt = result.recheckAt;
      } catch (e) {
        status = failSafeStatus(pdb, (e as Error).message, now);
      }
      if (jsonEqual(status, pdb.status ?? {})) continue;
      this.resources.update(
        this.pdbInfo,
        ns,
        pdb.metadata.name!,
        { ...pdb, status },
        { subresource: 'status', fieldManager: 'kube-controller-manager' },
      );
    }
    this.scheduleRecheck(ns, recheckAt);
  }

  /** kube's finders: the scale of a served kind with a scale subresource (Deployments, custom resources). */
  private scaleOf: ScaleOf = (ref, ns) => {
    const info = this.registry.byKind(ref.apiVersion, ref.kind);
    if (!info) return undefined;
    if (!info.scale)
      throw new Error(
        `${info.group ? `${info.plural}.${info.group}` : info.plural} does not implement the scale subresource`,
      );
    if (!this.resources.exists(info, ns, ref.name)) return null;
    const owner = this.resources.get(info, ns, ref.name);
    return owner.metadata.uid === ref.uid ? (scaleOf(info.scale, owner).spec.replicas ?? 0) : null;
  };

  private scheduleRecheck(ns: string, at: number | undefined): void {
    clearTimeout(this.timers.get(ns));
    this.timers.delete(ns);
    if (at === undefined || this.stopped) return;
    const t = setTimeout(() => this.enqueue(ns), Math.max(0, at - this.now()) + 1);
    t.unref?.();
    this.timers.set(ns, t);
  }
}
