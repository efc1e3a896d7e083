// Dynamic watches on provider kinds (upstream controllers/external/tracker.go ObjectTracker): infra machines and
// bootstrap configs can be any kind, so a controller starts their informers the first time one of its objects
// references them.
import type { KubeObject } from '@capi/apimachinery';
import type { InformerCache, Request } from '@capi/controller-runtime';

export class ExternalObjectTracker {
  private readonly watched = new Set<string>();

  /**
   * `toRequests` maps an event's object to the controller's requests (upstream: the handler given to Watch);
   * `enqueue` adds one to the controller's queue (a no-op while it is not running).
   */
  constructor(
    private readonly cache: InformerCache,
    private readonly toRequests: (obj: KubeObject) => Request[],
    private readonly enqueue: (req: Request) => void,
  ) {}

  /** Starts watching `apiVersion`/`kind` once; returns true when this call added the watch. */
  watch(apiVersion: string, kind: string): boolean {
    const key = `${apiVersion}/${kind}`;
    if (this.watched.has(key)) return false;
    this.watched.add(key);
    const forward = (...objs: KubeObject[]) => {
      for (const o of objs) for (const r of this.toRequests(o)) this.enqueue(r);
    };
    this.cache.informerFor(apiVersion, kind).addEventHandler({
      onAdd: (o) => forward(o),
      onUpdate: (a, b) => forward(a, b),
      onDelete: (o) => forward(o),
    });
    return true;
  }

  isWatching(apiVersion: string, kind: string): boolean {
    return this.watched.has(`${apiVersion}/${kind}`);
  }
}
