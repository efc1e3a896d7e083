// Garbage collection of ownerReferences (background / foreground / orphan) and namespace termination, driven by store
// events: what kube-controller-manager's garbage collector and namespace controller do after kube-apiserver marked an
// object as being deleted.
import type { KubeObject } from '@capi/apimachinery';
import type { Store, StoreEvent, StoredObject } from '../storage';
import type { Registry, ResourceInfo } from '../server/registry';
import { storageResource } from '../server/registry';
import type { Resources } from '../server/resources';
import { StatusError } from '../server/status';
import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER } from '../server/deletion';
import { tidyMeta } from '../server/objects';

export const FOREGROUND = FOREGROUND_FINALIZER;
export const NAMESPACE_FINALIZER = 'kubernetes';

type Task = () => void;

/** Owner references of `obj` whose owner no longer exists (absent, or recreated with another uid). */
export function danglingOwnerUids(
  obj: KubeObject,
  ownerExists: (ref: { apiVersion: string; kind: string; name: string; uid: string }) => boolean,
): string[] {
  return (obj.metadata.ownerReferences ?? []).filter((r) => !ownerExists(r)).map((r) => r.uid);
}

export class GarbageCollector {
  private queue: Task[] = [];
  private scheduled = false;
  private stopped = false;
  private readonly unsubscribe: () => void;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly store: Store,
    private readonly registry: Registry,
    private readonly resources: Resources,
    private readonly onError: (e: unknown) => void = () => {},
  ) {
    this.unsubscribe = store.onAny((ev) => this.onEvent(ev));
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe();
  }

  /** Resolves once every queued task has run (for tests). */
  idle(): Promise<void> {
    if (!this.scheduled && this.queue.length === 0) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  private enqueue(t: Task): void {
    if (this.stopped) return;
    this.queue.push(t);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.drain());
    }
  }

  private drain(): void {
    while (this.queue.length && !this.stopped) {
      const t = this.queue.shift()!;
      try {
        t();
      } catch (e) {
        // NotFound / Conflict are races with clients: the next event re-triggers the decision.
        if (!(e instanceof StatusError && (e.code === 404 || e.code === 409))) this.onError(e);
      }
    }
    this.scheduled = false;
    this.idleWaiters.splice(0).forEach((r) => r());
  }

  private infoOf(data: Record<string, any>): ResourceInfo | undefined {
    return this.registry.byKind(data.apiVersion, data.kind);
  }

  private ownerExists =
    (ns: string) =>
    (ref: { apiVersion: string; kind: string; name: string; uid: string }): boolean => {
      const info = this.registry.byKind(ref.apiVersion, ref.kind);
      if (!info) return true; // unknown kinds are left alone
      const row = this.store.get(`${storageResource(info)}/${info.namespaced ? ns : ''}/${ref.name}`);
      return !!row && row.data.metadata?.uid === ref.uid;
    };

  private onEvent(ev: StoreEvent): void {
    const obj = ev.data as KubeObject;
    const meta = obj.metadata ?? {};
    if (ev.type === 'DELETED') {
      this.enqueue(() => this.processDependentsOf(meta.uid!));
      for (const ref of meta.ownerReferences ?? [])
        this.enqueue(() => this.checkForegroundOwner(ref, meta.namespace ?? ''));
      if (meta.namespace) this.enqueue(() => this.checkNamespace(meta.namespace!));
      return;
    }
    if (meta.deletionTimestamp && meta.finalizers?.includes(FOREGROUND))
      this.enqueue(() => this.foreground(ev.resource, ev.namespace, meta.name!));
    if (meta.deletionTimestamp && meta.finalizers?.includes(ORPHAN_FINALIZER))
      this.enqueue(() => this.orphan(ev.resource, ev.namespace, meta.name!));
    if (meta.deletionTimestamp && obj.kind === 'Namespace' && ev.resource === '/namespaces')
      this.enqueue(() => this.checkNamespace(meta.name!));
    if (ev.type === 'ADDED' && meta.ownerReferences?.length)
      this.enqueue(() => this.processDependent(ev.resource, ev.namespace, meta.name!));
  }

  private processDependentsOf(uid: string): void {
    for (const dep of this.store.dependents(uid)) this.processDependent(dep.resource, dep.namespace, dep.name);
  }

  /** Deletes a dependent whose owners are all gone; drops dangling references when some owner remains. */
  private processDependent(resource: string, ns: string, name: string): void {
    const row = this.store.get(`${resource}/${ns}/${name}`);
    if (!row) return;
    const obj = row.data as KubeObject;
    const info = this.infoOf(obj);
    if (!info) return;
    const refs = obj.metadata.ownerReferences ?? [];
    const dangling = danglingOwnerUids(obj, this.ownerExists(ns));
    if (dangling.length === 0) return;
    if (dangling.length === refs.length) {
      if (!obj.metadata.deletionTimestamp) this.resources.delete(info, ns, name, { propagationPolicy: 'Background' });
      return;
    }
    this.resources.patch(
      info,
      ns,
      name,
      'merge',
      {
        metadata: {
          resourceVersion: obj.metadata.resourceVersion,
          ownerReferences: refs.filter((r) => !dangling.includes(r.uid)),
        },
      },
      { fieldManager: 'garbage-collector' },
    );
  }

  /** Foreground deletion: delete dependents, then release the owner once no blocking dependent remains. */
  private foreground(resource: string, ns: string, name: string): void {
    const row = this.store.get(`${resource}/${ns}/${name}`);
    if (!row) return;
    const owner = row.data as KubeObject;
    const deps = this.store.dependents(owner.metadata.uid!);
    for (const d of deps) this.deleteDependent(d, 'Foreground');
    this.releaseIfUnblocked(row);
  }

  private deleteDependent(d: StoredObject, policy: 'Foreground' | 'Background'): void {
    const info = this.infoOf(d.data);
    if (info && !d.data.metadata?.deletionTimestamp)
      this.resources.delete(info, d.namespace, d.name, { propagationPolicy: policy });
  }

  private releaseIfUnblocked(row: StoredObject): void {
    const owner = row.data as KubeObject;
    const blocking = this.store
      .dependents(owner.metadata.uid!)
      .filter((d) =>
        (d.data.metadata?.ownerReferences ?? []).some((r: any) => r.uid === owner.metadata.uid && r.blockOwnerDeletion),
      );
    if (blocking.length) return;
    const info = this.infoOf(owner);
    if (!info) return;
    this.resources.patch(
      info,
      row.namespace,
      row.name,
      'merge',
      {
        metadata: {
          resourceVersion: owner.metadata.resourceVersion,
          finalizers: (owner.metadata.finalizers ?? []).filter((f) => f !== FOREGROUND),
        },
      },
      { fieldManager: 'garbage-collector' },
    );
  }

  /** Orphan deletion: the dependents lose their reference to the owner, then the owner its "orphan" finalizer. */
  private orphan(resource: string, ns: string, name: string): void {
    const row = this.store.get(`${resource}/${ns}/${name}`);
    if (!row) return;
    const owner = row.data as KubeObject;
    for (const dep of this.store.dependents(owner.metadata.uid!)) {
      const data = structuredClone(dep.data) as KubeObject;
      data.metadata.ownerReferences = (data.metadata.ownerReferences ?? []).filter((r) => r.uid !== owner.metadata.uid);
      tidyMeta(data);
      this.store.put(dep.resource, dep.namespace, dep.name, (rev) => {
        data.metadata.resourceVersion = String(rev);
        return data;
      });
    }
    const info = this.infoOf(owner);
    if (!info) return;
    this.resources.patch(
      info,
      row.namespace,
      row.name,
      'merge',
      {
        metadata: {
          resourceVersion: owner.metadata.resourceVersion,
          finalizers: (owner.metadata.finalizers ?? []).filter((f) => f !== ORPHAN_FINALIZER),
        },
      },
      { fieldManager: 'garbage-collector' },
    );
  }

  private checkForegroundOwner(ref: { apiVersion: string; kind: string; name: string; uid: string }, ns: string): void {
    const info = this.registry.byKind(ref.apiVersion, ref.kind);
    if (!info) return;
    const row = this.store.get(`${storageResource(info)}/${info.namespaced ? ns : ''}/${ref.name}`);
    if (row && row.data.metadata?.uid === ref.uid && row.data.metadata?.finalizers?.includes(FOREGROUND))
      this.releaseIfUnblocked(row);
  }

  /** Namespace termination: delete everything in it, then drop the "kubernetes" finalizer. */
  private checkNamespace(name: string): void {
    const row = this.store.get(`/namespaces//${name}`);
    if (!row?.data.metadata?.deletionTimestamp) return;
    const seen = new Set<string>();
    let remaining = 0;
    for (const info of this.registry.all()) {
      const res = storageResource(info);
      if (!info.namespaced || seen.has(res)) continue;
      seen.add(res);
      for (const obj of this.store.list(res, name)) {
        remaining++;
        this.deleteDependent(obj, 'Background');
      }
    }
    if (remaining > 0) return;
    // As the namespace controller: /finalize without "kubernetes", then delete again (gone once no finalizer is left).
    const spec = (row.data.spec ?? {}) as { finalizers?: string[] };
    const rest = (spec.finalizers ?? []).filter((f) => f !== NAMESPACE_FINALIZER);
    if (rest.length !== (spec.finalizers ?? []).length) this.resources.finalizeNamespace(name, rest);
    if (!rest.length) this.resources.delete(this.infoOf(row.data)!, '', name);
  }
}
