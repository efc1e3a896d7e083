// The simulator's view of its workload cluster: one informer per kind it plans from, as a cluster's own controllers
// keep (kube-controller-manager's shared informers), instead of listing every kind on every pass, which at thousands
// of Nodes made each pass serialize the whole cluster. A pass must not act on the cache before its own previous
// writes are in it (it would create a DaemonSet Pod twice, or finish a Pod twice), so `observe` waits for them, as
// kube's controllers do with their expectations (pkg/controller/controller_utils.go ControllerExpectations).
import type { KubeObject } from '@capi/apimachinery';
import {
  isAtLeast,
  isNotFound,
  NoKindMatchError,
  SharedInformer,
  type Client,
  type ObjectRef,
} from '@capi/controller-runtime';
import type { ClusterSnapshot } from './types';

export const SNAPSHOT_KINDS: [keyof ClusterSnapshot, string, string][] = [
  ['nodes', 'v1', 'Node'],
  ['pods', 'v1', 'Pod'],
  ['deployments', 'apps/v1', 'Deployment'],
  ['replicaSets', 'apps/v1', 'ReplicaSet'],
  ['daemonSets', 'apps/v1', 'DaemonSet'],
  ['persistentVolumeClaims', 'v1', 'PersistentVolumeClaim'],
  ['persistentVolumes', 'v1', 'PersistentVolume'],
  ['volumeAttachments', 'storage.k8s.io/v1', 'VolumeAttachment'],
];
/** The kinds whose changes start a pass (the others change only through the simulator's own writes). */
const TRIGGER_KINDS = new Set(['Node', 'Pod', 'Deployment', 'DaemonSet']);

/** A write of the simulator, as the cache must show it before the next pass plans. */
export type Written =
  /** Created or patched: the server's answer's resourceVersion. */
  | { ref: ObjectRef; resourceVersion: string }
  /** Deleted (gone) or, with `terminating`, at least terminating. */
  | { ref: ObjectRef; uid?: string; deleted: true; terminating?: boolean };

/** The server does not serve the kind (no such group/version/resource): nothing of it to simulate. */
export const notServed = (e: unknown) => e instanceof NoKindMatchError || isNotFound(e);
const kindKey = (apiVersion: string, kind: string) => `${apiVersion}/${kind}`;

export class SnapshotCache {
  /** By apiVersion/kind; a kind the server does not serve has none (nothing of it to simulate). */
  private readonly informers = new Map<string, SharedInformer>();

  constructor(private readonly client: Client) {}

  /**
   * Starts an informer per served kind and resolves once all have synced (false: one did not in `timeoutMs`). Called
   * again after a failure (the server not up yet), it stops the informers of the earlier attempt first.
   */
  async start(onChange: () => void, timeoutMs: number): Promise<boolean> {
    await this.stop();
    this.informers.clear();
    for (const [, apiVersion, kind] of SNAPSHOT_KINDS) {
      try {
        await this.client.list(apiVersion, kind);
      } catch (e) {
        if (notServed(e)) continue;
        throw e;
      }
      const informer = new SharedInformer(this.client, apiVersion, kind);
      if (TRIGGER_KINDS.has(kind))
        informer.addEventHandler({ onAdd: onChange, onUpdate: onChange, onDelete: onChange });
      informer.start();
      this.informers.set(kindKey(apiVersion, kind), informer);
    }
    const synced = await Promise.all([...this.informers.values()].map((i) => i.waitForSync(timeoutMs)));
    return synced.every(Boolean);
  }

  async stop(): Promise<void> {
    await Promise.all([...this.informers.values()].map((i) => i.stop()));
  }

  snapshot(): ClusterSnapshot {
    return Object.fromEntries(
      SNAPSHOT_KINDS.map(([key, apiVersion, kind]) => [
        key,
        this.informers.get(kindKey(apiVersion, kind))?.list() ?? [],
      ]),
    ) as unknown as ClusterSnapshot;
  }

  /** Resolves true once every write shows in the cache, false after `timeoutMs` (the next pass then goes ahead). */
  observe(writes: readonly Written[], timeoutMs: number): Promise<boolean> {
    const pending = writes.filter((w) => !this.shows(w));
    if (pending.length === 0) return Promise.resolve(true);
    const informers = new Set(pending.map((w) => this.informerOf(w.ref)).filter((i) => i !== undefined));
    return new Promise((resolve) => {
      const unsubscribe = [...informers].map((i) =>
        i.onResourceVersion(() => {
          for (let n = pending.length - 1; n >= 0; n--) if (this.shows(pending[n])) pending.splice(n, 1);
          if (pending.length === 0) finish(true);
        }),
      );
      const timer = setTimeout(() => finish(false), timeoutMs);
      timer.unref?.();
      const finish = (ok: boolean) => {
        clearTimeout(timer);
        unsubscribe.forEach((u) => u());
        resolve(ok);
      };
    });
  }

  private informerOf(ref: ObjectRef): SharedInformer | undefined {
    return this.informers.get(kindKey(ref.apiVersion, ref.kind));
  }

  private shows(w: Written): boolean {
    const informer = this.informerOf(w.ref);
    if (!informer) return true;
    if ('resourceVersion' in w)
      // A kind's events arrive in resourceVersion order: one at or past the write's means the write is in.
      return isAtLeast(informer.lastResourceVersion(), w.resourceVersion);
    const current: KubeObject | undefined = informer.get(w.ref.namespace, w.ref.name);
    if (!current || (w.uid && current.metadata.uid !== w.uid)) return true;
    return !!w.terminating && !!current.metadata.deletionTimestamp;
  }
}
