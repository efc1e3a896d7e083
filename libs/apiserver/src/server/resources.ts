// The REST semantics of every resource: CRUD, patch, apply, delete with finalizers, list and watch over the Store.
import { randomUUID } from 'node:crypto';
import { formatTime, jsonEqual, mergePatch, type KubeObject, type Status } from '@capi/apimachinery';
import { CompactedError, objectKey, storedJson, ValueTooLargeError, type Store, type StoreEvent } from '../storage';
import { rememberJson } from './known-json';
import { engines } from './engines';
import { initCreate, mergeUpdate, tidyMeta } from './objects';
import { jsonPatch, strategicMergePatch } from './patch';
import { apiVersionOf, storageResource, type Registry, type ResourceInfo } from './registry';
import { matchesFields, parseFieldSelector, parseLabelSelector } from './selectors';
import { alreadyExists, badRequest, conflict, gone, invalid, notFound, StatusError } from './status';
import { establishedStatus } from './crds';
import { fromStorage, toStorage } from './conversion';
import { checkNesting, objectTooLarge } from './limits';
import { checkKind, StrictDecodingError } from './identity';
import { defaultService, serviceCauses } from './services';
import { podBeforeDelete } from './pod-deletion';
import type { AdmissionHooks } from '../admission';
import { admit, checkApplyFieldsDeclared, checkNoNewFinalizers, checkUidUnchanged } from './write-checks';
import {
  checkDeletePreconditions,
  deletedStatus,
  validateDeletePolicy,
  gcFinalizers,
  markDeleting,
  pendingSpecFinalizers,
  type DeletePolicy,
} from './deletion';

/**
 * Fields the schema would prune: `Strict` rejects them with a 400 (kubectl sends it by default), `Warn` drops them and
 * reports each in `warnings` (sent as `Warning` headers), `Ignore` drops them silently.
 */
export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';
export interface WriteOpts {
  fieldManager?: string;
  dryRun?: boolean;
  subresource?: 'status' | 'scale';
  fieldValidation?: FieldValidation;
  warnings?: string[];
  /** Admission webhooks around the server's own defaulting and validation (../admission). */
  admission?: AdmissionHooks;
  /** The uid a create gives the object (default: a new one). */
  uid?: string;
}
export interface ApplyOpts extends WriteOpts {
  fieldManager: string;
  force?: boolean;
}
export interface DeleteOpts extends DeletePolicy {
  preconditions?: { uid?: string; resourceVersion?: string };
  /** DeleteOptions.gracePeriodSeconds: only Pods delete gracefully (see pod-deletion.ts). */
  gracePeriodSeconds?: number;
  dryRun?: boolean;
}
export interface ListOpts {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
}
export interface WatchOpts {
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
  sendInitialEvents?: boolean;
}

/** The annotation of the bookmark that ends a watch's initial events (metav1.InitialEventsAnnotationKey). */
export const INITIAL_EVENTS_END = 'k8s.io/initial-events-end';
export type PatchKind = 'json' | 'merge' | 'strategic';

type WatchEvent = { type: string; object: Record<string, any> };

/**
 * A stored object as served per apiVersion, shared by every reader and watcher of that version (frozen), so the HTTP
 * layer can encode it once (or reuse the stored JSON) and write the same bytes to each. Keyed by the store's frozen data.
 */
const presentedLive = new WeakMap<object, Map<string, KubeObject>>();

export class Resources {
  constructor(
    private readonly store: Store,
    private readonly registry: Registry,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  private now(): string {
    return formatTime(this.clock());
  }

  private key(info: ResourceInfo, ns: string, name: string): string {
    return objectKey(storageResource(info), info.namespaced ? ns : '', name);
  }

  /** Stored objects carry the apiVersion of the version that wrote them; serve them as the requested version. */
  private present(info: ResourceInfo, data: Record<string, any>): KubeObject {
    return fromStorage(info, data);
  }

  get(info: ResourceInfo, ns: string, name: string): KubeObject {
    const row = this.store.get(this.key(info, ns, name));
    if (!row) throw notFound(info.group, info.plural, name);
    return this.presentShared(info, row.data);
  }

  exists(info: ResourceInfo, ns: string, name: string): boolean {
    return this.store.get(this.key(info, ns, name)) !== undefined;
  }

  private tryGet(info: ResourceInfo, ns: string, name: string): KubeObject | undefined {
    const row = this.store.get(this.key(info, ns, name));
    return row ? this.presentShared(info, row.data) : undefined;
  }

  private requireNamespace(info: ResourceInfo, ns: string, creating: boolean, name = ''): void {
    if (!info.namespaced) return;
    if (!ns) throw badRequest('the namespace of the object is required');
    const nsObj = this.store.get(objectKey('/namespaces', '', ns));
    if (!nsObj) throw notFound('', 'namespaces', ns);
    if (creating && nsObj.data.metadata?.deletionTimestamp) {
      // kube's NamespaceLifecycle admission (plugin/pkg/admission/namespace/lifecycle): a Forbidden naming the object.
      throw new StatusError(
        403,
        `${info.group ? `${info.plural}.${info.group}` : info.plural} "${name}" is forbidden: unable to create new content in namespace ${ns} because it is being terminated`,
        'Forbidden',
        { name, group: info.group, kind: info.plural },
      );
    }
  }

  private checkIdentity(info: ResourceInfo, obj: any, ns: string, name?: string): void {
    if (typeof obj !== 'object' || obj === null || Array.isArray(obj))
      throw badRequest('the request body must be a JSON object');
    // Also bounds what patches build up (a JSON patch may add a nested value below a nested path). managedFields
    // nest 4 levels deeper than the fields they track and are the server's own: left out.
    checkNesting({ ...obj, metadata: { ...obj.metadata, managedFields: undefined } }, 'object');
    checkKind(this.registry, info, obj);
    obj.metadata ??= {};
    if (typeof obj.metadata !== 'object') throw badRequest('metadata must be an object');
    if (name !== undefined && obj.metadata.name && obj.metadata.name !== name)
      throw badRequest(`the name of the object (${obj.metadata.name}) does not match the name on the URL (${name})`);
    if (info.namespaced && obj.metadata.namespace && obj.metadata.namespace !== ns) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
  }

  create(info: ResourceInfo, ns: string, body: unknown, opts: WriteOpts = {}): KubeObject {
    this.checkIdentity(info, body, ns);
    this.requireNamespace(info, ns, true, (body as KubeObject).metadata.name ?? '');
    const obj = initCreate(structuredClone(body as KubeObject), info, this.now(), opts.uid ?? randomUUID(), ns);
    if (!obj.metadata.name)
      throw invalid(info.group, info.kind, '', [
        {
          type: 'FieldValueRequired',
          field: 'metadata.name',
          message: 'Required value: name or generateName is required',
        },
      ]);
    if (this.tryGet(info, ns, obj.metadata.name)) throw alreadyExists(info.group, info.plural, obj.metadata.name);
    let admitted = this.admitted(info, obj, opts);
    admitted = this.track(info, {
      live: undefined,
      updated: admitted,
      manager: opts.fieldManager ?? 'unknown',
      schema: info.schema,
      now: this.now(),
    });
    return this.persist(info, ns, admitted, opts.dryRun);
  }

  private persist(info: ResourceInfo, ns: string, obj: KubeObject, dryRun?: boolean): KubeObject {
    tidyMeta(obj);
    if (isCrd(info)) obj.status = establishedStatus(obj, this.now());
    if (dryRun) {
      const out = this.present(info, toStorage(info, obj));
      if (!out.metadata.resourceVersion) delete out.metadata.resourceVersion;
      return out;
    }
    const stored = toStorage(info, obj);
    // Like kube's GuaranteedUpdate: a write that leaves the stored object the same is not persisted, keeps its
    // resourceVersion and sends no watch event (else every no-op write would wake every watcher).
    let row;
    try {
      row = this.store.put(
        storageResource(info),
        info.namespaced ? ns : '',
        obj.metadata.name!,
        (rev) => {
          stored.metadata.resourceVersion = String(rev);
          return stored;
        },
        sameExceptResourceVersion,
      );
    } catch (e) {
      if (e instanceof ValueTooLargeError) throw objectTooLarge();
      throw e;
    }
    return this.presentShared(info, row.data);
  }

  /** PUT: optimistic concurrency on metadata.resourceVersion. */
  update(info: ResourceInfo, ns: string, name: string, body: unknown, opts: WriteOpts = {}): KubeObject {
    this.checkIdentity(info, body, ns, name);
    const updated = body as KubeObject;
    const live = this.tryGet(info, ns, name);
    if (!live) {
      // Like kube, only Leases and Events may be created by PUT.
      if (opts.subresource || !['Lease', 'Event'].includes(info.kind) || info.custom)
        throw notFound(info.group, info.plural, name);
      return this.create(info, ns, { ...updated, metadata: { ...updated.metadata, name } }, opts);
    }
    // kube's DefaultUpdatedObjectInfo: a uid in the body is a precondition on the stored object.
    const uid = updated.metadata.uid;
    if (uid && uid !== live.metadata.uid) {
      throw conflict(
        info.group,
        info.plural,
        name,
        `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${live.metadata.uid}`,
      );
    }
    const rv = updated.metadata.resourceVersion;
    if (rv && rv !== live.metadata.resourceVersion) {
      throw conflict(
        info.group,
        info.plural,
        name,
        'the object has been modified; please apply your changes to the latest version and try again',
      );
    }
    return this.write(info, ns, live, structuredClone(updated), opts, 'update');
  }

  /** Shared tail of update/patch: carry server-owned fields, admit, track field ownership, finalize if done. */
  private write(
    info: ResourceInfo,
    ns: string,
    live: KubeObject,
    updated: KubeObject,
    opts: WriteOpts,
    _verb: string,
  ): KubeObject {
    let next = mergeUpdate(live, updated, info, opts.subresource);
    checkNoNewFinalizers(info, live, next);
    next = this.admitted(info, next, opts, live);
    next = this.track(info, {
      live,
      updated: next,
      manager: opts.fieldManager ?? 'unknown',
      schema: info.schema,
      subresource: opts.subresource,
      now: this.now(),
    });
    return this.finishWrite(info, ns, next, opts.dryRun);
  }

  private finishWrite(info: ResourceInfo, ns: string, next: KubeObject, dryRun?: boolean): KubeObject {
    // kube's ShouldDeleteDuringUpdate: the last finalizer gone removes an object whose grace period is over (0).
    if (
      next.metadata.deletionTimestamp &&
      !next.metadata.deletionGracePeriodSeconds &&
      !(next.metadata.finalizers ?? []).length &&
      !pendingSpecFinalizers(info, next)
    ) {
      if (!dryRun) this.remove(info, ns, next.metadata.name!);
      return tidyMeta(next);
    }
    return this.persist(info, ns, next, dryRun);
  }

  patch(
    info: ResourceInfo,
    ns: string,
    name: string,
    kind: PatchKind,
    patch: unknown,
    opts: WriteOpts = {},
  ): KubeObject {
    const live = this.get(info, ns, name);
    let patched: unknown;
    if (kind === 'json') patched = jsonPatch(live, patch);
    else if (typeof patch !== 'object' || patch === null || Array.isArray(patch))
      throw badRequest('patch body must be a JSON object');
    else if (kind === 'merge') patched = mergePatch(live, patch);
    else patched = strategicMergePatch(live, patch); // the HTTP layer refuses it for custom resources (415)
    this.checkIdentity(info, patched, ns, name);
    const p = patched as KubeObject;
    if (p.metadata.resourceVersion && p.metadata.resourceVersion !== live.metadata.resourceVersion) {
      throw conflict(
        info.group,
        info.plural,
        name,
        'the object has been modified; please apply your changes to the latest version and try again',
      );
    }
    checkUidUnchanged(info, live, p.metadata.uid);
    try {
      return this.write(info, ns, live, p, opts, 'patch');
    } catch (e) {
      if (e instanceof StrictDecodingError) throw e.ofPatch(p);
      throw e;
    }
  }

  /** Server-side apply: creates when absent; field ownership and conflicts come from the merge engine. */
  apply(info: ResourceInfo, ns: string, name: string, intent: unknown, opts: ApplyOpts): KubeObject {
    // kube's ValidatePatchOptions (staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/validation/validation.go).
    if (!opts.fieldManager)
      throw invalid('meta.k8s.io', 'PatchOptions', '', [
        { type: 'FieldValueRequired', field: 'fieldManager', message: 'Required value: is required for apply patch' },
      ]);
    this.checkIdentity(info, intent, ns, name);
    const i = intent as KubeObject;
    if (!i.metadata.name) i.metadata.name = name;
    const live = this.tryGet(info, ns, name);
    if (live && i.metadata.resourceVersion && i.metadata.resourceVersion !== live.metadata.resourceVersion) {
      throw conflict(
        info.group,
        info.plural,
        name,
        'the object has been modified; please apply your changes to the latest version and try again',
      );
    }
    if (live) checkUidUnchanged(info, live, i.metadata.uid);
    if (!live) {
      if (opts.subresource) throw notFound(info.group, info.plural, name);
      // kube's patcher: a uid pins the object, so an apply computed from a stale copy of a deleted object is refused
      // rather than creating a new one under the same name.
      if (i.metadata.uid)
        throw conflict(
          info.group,
          info.plural,
          name,
          `uid mismatch: the provided object specified uid ${i.metadata.uid}, and no existing object was found`,
        );
      this.requireNamespace(info, ns, true, name);
    }
    if (info.custom && info.schema) checkApplyFieldsDeclared(info, i);
    let merged: KubeObject;
    try {
      merged = engines.applyIntent({
        live,
        intent: i,
        manager: opts.fieldManager,
        force: !!opts.force,
        schema: info.schema,
        subresource: opts.subresource,
        now: this.now(),
        ignoreStatus: info.statusSubresource,
      });
    } catch (e) {
      this.rethrowInvalid(info, name, e);
      const conflicts = engines.conflictsOf(e);
      if (!conflicts) throw e;
      throw new StatusError(409, (e as Error).message, 'Conflict', {
        causes: conflicts.map((c) => ({
          reason: 'FieldManagerConflict',
          message: c.message ?? `conflict with "${c.manager}"`,
          field: c.field,
        })),
      });
    }
    if (!live) {
      const obj = initCreate(merged, info, this.now(), opts.uid ?? randomUUID(), ns);
      return this.persist(info, ns, this.admitted(info, obj, opts), opts.dryRun);
    }
    let next = mergeUpdate(live, merged, info, opts.subresource);
    checkNoNewFinalizers(info, live, next);
    next = this.admitted(info, next, opts, live);
    return this.finishWrite(info, ns, next, opts.dryRun);
  }

  /**
   * kube's order: mutating admission webhooks, the kind's defaults (a Service's ClusterIP), prune, default and
   * validate, then validating admission webhooks.
   */
  private admitted(info: ResourceInfo, obj: KubeObject, opts: WriteOpts, live?: KubeObject): KubeObject {
    const hooks = opts.admission;
    const out = admit(info, this.serviceDefaults(info, hooks ? hooks.mutate(obj, live) : obj, live), opts, live);
    hooks?.validate(out, live);
    return out;
  }

  /** A Service's defaults and ClusterIP (kube's Service REST allocates it); other kinds unchanged. */
  private serviceDefaults(info: ResourceInfo, obj: KubeObject, live?: KubeObject): KubeObject {
    if (info.group !== '' || info.kind !== 'Service') return obj;
    const used = new Set<string>();
    for (const row of this.store.list(storageResource(info), undefined)) {
      const spec = row.data.spec ?? {};
      if (row.data.metadata?.uid !== live?.metadata.uid)
        for (const ip of spec.clusterIPs ?? [spec.clusterIP]) used.add(ip);
    }
    const out = defaultService(obj, live, used);
    const causes = serviceCauses(out, live, used);
    if (causes.length) throw invalid(info.group, info.kind, obj.metadata.name ?? '', causes);
    return out;
  }

  /** Field ownership for non-apply writes; the merge engine's bad-input errors become 422. */
  private track(info: ResourceInfo, a: Parameters<typeof engines.trackUpdate>[0]): KubeObject {
    try {
      return engines.trackUpdate({ ...a, ignoreStatus: info.statusSubresource });
    } catch (e) {
      this.rethrowInvalid(info, a.updated.metadata?.name ?? '', e);
      throw e;
    }
  }

  private rethrowInvalid(info: ResourceInfo, name: string, e: unknown): void {
    const bad = engines.invalidOf(e);
    if (bad)
      throw invalid(info.group, info.kind, name, [
        { type: 'FieldValueInvalid', field: bad.field, message: bad.message },
      ]);
  }

  /**
   * DELETE as kube's registry store: preconditions, then the garbage collector's finalizer for the propagation policy;
   * an object left with finalizers (or a Namespace with spec finalizers) is marked as being deleted and answered,
   * otherwise it is removed and the answer is a Success Status.
   */
  delete(
    info: ResourceInfo,
    ns: string,
    name: string,
    opts: DeleteOpts = {},
  ): { object: KubeObject | Status; gone: boolean } {
    validateDeletePolicy(opts);
    const live = this.get(info, ns, name);
    checkDeletePreconditions(info, live, opts.preconditions);
    const pod = isPod(info);
    // Pods answer with the object itself, deleted or not (their registry's ReturnDeletedObject).
    const answer = (o: KubeObject) => (pod ? o : deletedStatus(info, o));
    if (pod) {
      const d = podBeforeDelete(live, opts.gracePeriodSeconds, this.clock());
      if (d.kind === 'pending') return { object: live, gone: false };
      if (d.kind === 'graceful') {
        d.obj.metadata.finalizers = gcFinalizers(live.metadata.finalizers ?? [], opts);
        if (d.grace > 0 || d.obj.metadata.finalizers.length)
          return { object: this.persist(info, ns, tidyMeta(d.obj), opts.dryRun), gone: false };
        if (!opts.dryRun) this.remove(info, ns, name);
        return { object: tidyMeta(d.obj), gone: true };
      }
    }
    const finalizers = gcFinalizers(live.metadata.finalizers ?? [], opts);
    if (finalizers.length === 0 && !pendingSpecFinalizers(info, live)) {
      if (!opts.dryRun) this.remove(info, ns, name);
      return { object: answer(live), gone: true };
    }
    if (live.metadata.deletionTimestamp && finalizers === live.metadata.finalizers)
      return { object: live, gone: false };
    const next = markDeleting(info, structuredClone(live), finalizers, this.now());
    return { object: this.persist(info, ns, next, opts.dryRun), gone: false };
  }

  /**
   * A Namespace's /finalize (what the namespace controller calls once the namespace is empty): sets its spec
   * finalizers, which updates of the Namespace itself cannot change.
   */
  finalizeNamespace(name: string, finalizers: string[]): KubeObject {
    const info = this.registry.lookup('', 'v1', 'namespaces')!;
    const next = structuredClone(this.get(info, '', name));
    next.spec = finalizers.length ? { ...(next.spec as object), finalizers } : {};
    return this.persist(info, '', next);
  }

  /** Physically removes an object; watchers see DELETED with the deletion revision. */
  remove(info: ResourceInfo, ns: string, name: string): void {
    this.store.delete(this.key(info, ns, name), (rev, last) => ({
      ...last,
      metadata: { ...last.metadata, resourceVersion: String(rev) },
    }));
  }

  list(info: ResourceInfo, ns: string | undefined, opts: ListOpts = {}): Record<string, any> {
    const labels = parseLabelSelector(opts.labelSelector);
    const fields = parseFieldSelector(opts.fieldSelector);
    let after = '';
    let rv = this.store.currentRevision();
    if (opts.continue) {
      try {
        const t = JSON.parse(Buffer.from(opts.continue, 'base64url').toString('utf8'));
        after = String(t.k);
        rv = Number(t.rv);
      } catch {
        throw badRequest('invalid continue token');
      }
      if (rv < this.store.oldestResumableRevision())
        throw gone(
          'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.',
        );
    }
    const items: KubeObject[] = [];
    let remaining = 0;
    let lastKey = '';
    for (const row of this.store.list(storageResource(info), info.namespaced ? ns : undefined, after)) {
      const obj = this.presentShared(info, row.data);
      if (!labels.matches(obj.metadata.labels) || !matchesFields(obj, fields)) continue;
      if (opts.limit && items.length >= opts.limit) remaining++;
      else {
        items.push(obj);
        lastKey = row.key;
      }
    }
    const token = remaining > 0 ? Buffer.from(JSON.stringify({ k: lastKey, rv })).toString('base64url') : undefined;
    const resourceVersion = String(this.store.currentRevision());
    if (info.custom) {
      // An unstructured list in kube: sorted keys, and `continue` always written.
      const metadata = { continue: token ?? '', ...(token ? { remainingItemCount: remaining } : {}), resourceVersion };
      return { apiVersion: apiVersionOf(info), items, kind: info.listKind, metadata };
    }
    const metadata = { resourceVersion, ...(token ? { continue: token, remainingItemCount: remaining } : {}) };
    return { apiVersion: apiVersionOf(info), kind: info.listKind, metadata, items };
  }

  /** Streams watch events; returns a function that stops the watch. Throws 410 for compacted resourceVersions. */
  watch(info: ResourceInfo, ns: string | undefined, opts: WatchOpts, send: (ev: WatchEvent) => void): () => void {
    const labels = parseLabelSelector(opts.labelSelector);
    const fields = parseFieldSelector(opts.fieldSelector);
    const match = (o: KubeObject) =>
      (!info.namespaced || ns === undefined || o.metadata.namespace === ns) &&
      labels.matches(o.metadata.labels) &&
      matchesFields(o, fields);
    let since: number;
    const legacy = !opts.resourceVersion || opts.resourceVersion === '0';
    // kube's SetListOptionsDefaults (WatchList on): a watch from "" or "0" sends the initial events unless told not to.
    if (opts.sendInitialEvents ?? legacy) {
      since = this.store.currentRevision();
      for (const row of this.store.list(storageResource(info), info.namespaced ? ns : undefined)) {
        const o = this.present(info, row.data);
        if (match(o)) send({ type: 'ADDED', object: o });
      }
      // Then the cacher's bookmark marking their end, when bookmarks are allowed (storage/cacher/cacher.go).
      if (opts.allowWatchBookmarks) send(this.bookmark(info, { [INITIAL_EVENTS_END]: 'true' }));
    } else if (legacy) {
      since = this.store.currentRevision();
    } else {
      since = Number(opts.resourceVersion);
      if (!Number.isInteger(since) || since < 0) throw badRequest(`invalid resourceVersion "${opts.resourceVersion}"`);
    }
    try {
      return this.store.watch(storageResource(info), since, (ev: StoreEvent) => {
        const o = this.presentShared(info, ev.data);
        const now = match(o);
        // Like kube: an object entering the selection is ADDED, one leaving it is DELETED.
        const before = ev.prev ? match(this.presentShared(info, ev.prev)) : undefined;
        if (ev.type === 'MODIFIED' && before === false) {
          if (now) send({ type: 'ADDED', object: o });
        } else if (ev.type === 'MODIFIED' && before === true && !now) {
          // kube's cacheWatcher: the object as the watcher last matched it, at the event's resourceVersion.
          const last = structuredClone(this.present(info, ev.prev!));
          last.metadata.resourceVersion = o.metadata.resourceVersion;
          send({ type: 'DELETED', object: last });
        } else if (now) send({ type: ev.type, object: o });
      });
    } catch (e) {
      if (e instanceof CompactedError) throw gone(`too old resource version: ${e.requested} (${e.oldest})`);
      throw e;
    }
  }

  /** present() of a frozen (live, committed) object, computed once per apiVersion and shared; others as present(). */
  private presentShared(info: ResourceInfo, data: Record<string, any>): KubeObject {
    if (!Object.isFrozen(data)) return this.present(info, data);
    let byVersion = presentedLive.get(data);
    if (!byVersion) presentedLive.set(data, (byVersion = new Map()));
    const version = apiVersionOf(info);
    let o = byVersion.get(version);
    if (!o) {
      byVersion.set(version, (o = Object.freeze(this.present(info, data))));
      // Served as stored (same apiVersion and kind, so the same keys in the same order): the stored text is its JSON.
      const json = storedJson(data);
      if (
        json !== undefined &&
        o.apiVersion === data.apiVersion &&
        o.kind === data.kind &&
        Object.keys(o).length === Object.keys(data).length
      )
        rememberJson(o, json);
    }
    return o;
  }

  /** A BOOKMARK at the current revision: an empty object of the kind, with `annotations` when given. */
  bookmark(info: ResourceInfo, annotations?: Record<string, string>): WatchEvent {
    const resourceVersion = String(this.store.currentRevision());
    // Sorted keys for a custom resource's (unstructured) bookmark, as kube writes it.
    const metadata = info.custom
      ? { ...(annotations ? { annotations } : {}), resourceVersion }
      : { resourceVersion, ...(annotations ? { annotations } : {}) };
    return { type: 'BOOKMARK', object: { apiVersion: apiVersionOf(info), kind: info.kind, metadata } };
  }
}

const isPod = (info: ResourceInfo) => info.group === '' && info.kind === 'Pod';
const isCrd = (info: ResourceInfo) => info.group === 'apiextensions.k8s.io' && info.kind === 'CustomResourceDefinition';

function sameExceptResourceVersion(a: Record<string, any>, b: Record<string, any>): boolean {
  const strip = (o: Record<string, any>) => ({ ...o, metadata: { ...o.metadata, resourceVersion: undefined } });
  return jsonEqual(strip(a), strip(b));
}
