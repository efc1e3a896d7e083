// Dynamic watches on provider kinds (upstream controller-runtime external.ObjectTracker): infra machines and bootstrap
// configs can be any kind, so their informers are started the first time a Machine references them.
import { groupOf } from '@capi/apimachinery';
import { type InformerCache, type KubeObject, type Request } from '@capi/controller-runtime';
import { CLUSTER_GROUP } from '@capi/api';

/** Machines an external object belongs to: every Machine ownerReference (controller or not). */
export function machineRequestsFor(obj: KubeObject): Request[] {
  const ns = obj.metadata.namespace;
  return (obj.metadata.ownerReferences ?? [])
    .filter((r) => r.kind === 'Machine' && groupOf(r.apiVersion) === CLUSTER_GROUP)
    .map((r) => ({ namespace: ns, name: r.name }));
}

export class ExternalObjectTracker {
  private readonly watched = new Set<string>();

  /** `enqueue` adds a request to the Machine controller's queue (a no-op while it is not running). */
  constructor(
    private readonly cache: InformerCache,
    private readonly enqueue: (req: Request) => void,
  ) {}

  /** Starts watching `apiVersion`/`kind` once; returns true when this call added the watch. */
  watch(apiVersion: string, kind: string): boolean {
    const key = `${apiVersion}/${kind}`;
    if (this.watched.has(key)) return false;
    this.watched.add(key);
    const forward = (...objs: KubeObject[]) => {
      for (const o of objs) for (const r of machineRequestsFor(o)) this.enqueue(r);
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
