import { ApiError } from '../client/errors';
import { Client, ObjectRef, refOf } from '../client/types';
import {
  cloneJson,
  deepFreeze,
  everything,
  LabelSelectorError,
  parseSelector,
  realClock,
  shareManagedFieldsTrees,
  type Clock,
  type Selector,
  KubeObject,
  ObjectList,
} from '@capi/apimachinery';
import { IndexFunc, NAMESPACE_INDEX, SharedInformer, SharedInformerOptions, TransformFunc } from './informer';

/** How long starting an informer may wait for its first list (controller-runtime CacheSyncTimeout is 2 min). */
const DEFAULT_SYNC_TIMEOUT_MS = 30_000;

/** Values a field index lists an object under (controller-runtime IndexerFunc). */
export type FieldExtractor = (obj: KubeObject) => string[];

/** Informer index name of a field index (controller-runtime's "field:" prefix). */
export const fieldIndexName = (field: string): string => `field:${field}`;
/** A field index lists each value once per namespace and once across namespaces (controller-runtime's layout). */
const ALL_NAMESPACES = '__all_namespaces';
const indexKey = (namespace: string | undefined, value: string) => `${namespace || ALL_NAMESPACES}/${value}`;
/** Label indexes: a list whose selector requires `key=value` is served from the index of label `key`. */
export const labelIndexField = (key: string): string => `metadata.labels[${key}]`;

export interface CacheOptions {
  /** What the cache is for, in names of jobs that follow it (e.g. its resync); the manager's own cache has none. */
  name?: string;
  /** Restrict every informer to one namespace (cluster-scoped kinds ignore it). */
  namespace?: string;
  clock?: Clock;
  /**
   * Informer options; `transform` defaults to shareManagedFieldsTrees (one table per cache), which is invisible to
   * readers because reads hand out copies or frozen objects. `transform: undefined` given explicitly turns it off.
   */
  informer?: Omit<SharedInformerOptions, 'namespace' | 'clock'>;
  /** How long a read of a not-yet-watched kind waits for its first sync; default 30 s. */
  syncTimeoutMs?: number;
  /**
   * Per-kind informer settings by `apiVersion/kind` (controller-runtime's cache.Options.ByObject): a label selector
   * restricts what the cache holds of the kind; a transform replaces the default one for it.
   */
  byObject?: Readonly<Record<string, ByObject>>;
}

/** Informer settings of one kind (controller-runtime's cache.ByObject). */
export interface ByObject {
  labelSelector?: string;
  transform?: TransformFunc;
  /**
   * Hold only the objects' metadata, listed and watched as PartialObjectMetadata (what controller-runtime's cache
   * does for a kind read as metav1.PartialObjectMetadata): their spec, status or data never reach this process.
   */
  metadataOnly?: boolean;
}

/** The key of a kind in CacheOptions.byObject and CachedClientOptions.disableFor. */
export const kindKey = (apiVersion: string, kind: string): string => `${apiVersion}/${kind}`;

export interface CacheListOptions {
  namespace?: string;
  labelSelector?: string;
  /** Exact matches on indexed fields (see indexField); the first one selects candidates from its index. */
  matchingFields?: Record<string, string>;
  /** Return the stored objects deep-frozen instead of copies (see ListOptions.readOnly). */
  readOnly?: boolean;
  /** Applied to the cached objects before they are copied: cheap narrowing of a large list (e.g. by owner). */
  filter?: (obj: KubeObject) => boolean;
}

/**
 * Read side of controllers: one SharedInformer per (apiVersion, kind), created on first use (a read or a watch).
 * Reads return deep copies so callers may mutate them (a readOnly list: the stored objects, deep-frozen).
 */
export class InformerCache {
  private readonly informers = new Map<string, SharedInformer>();
  private readonly informerListeners = new Set<(informer: SharedInformer) => void>();
  /** `apiVersion/kind` → field → extractor of the field indexes registered so far. */
  private readonly fieldIndexes = new Map<string, Map<string, FieldExtractor>>();
  private readonly clock: Clock;
  private readonly informerOptions: Omit<SharedInformerOptions, 'namespace' | 'clock'>;
  private started = false;

  constructor(
    private readonly client: Client,
    private readonly opts: CacheOptions = {},
  ) {
    this.clock = opts.clock ?? realClock;
    this.informerOptions =
      opts.informer && 'transform' in opts.informer
        ? opts.informer
        : { ...opts.informer, transform: shareManagedFieldsTrees() };
  }

  /** The shared informer for a kind (started right away if the cache is started). */
  informerFor<T extends KubeObject = KubeObject>(apiVersion: string, kind: string): SharedInformer<T> {
    const key = kindKey(apiVersion, kind);
    let inf = this.informers.get(key);
    if (!inf) {
      const byObject = this.opts.byObject?.[key];
      inf = new SharedInformer(this.client, apiVersion, kind, {
        ...this.informerOptions,
        ...(byObject?.transform ? { transform: byObject.transform } : {}),
        ...(byObject?.labelSelector ? { labelSelector: byObject.labelSelector } : {}),
        ...(byObject?.metadataOnly ? { metadataOnly: true } : {}),
        namespace: this.opts.namespace,
        clock: this.clock,
      });
      this.informers.set(key, inf);
      if (this.started) inf.start();
      for (const l of [...this.informerListeners]) l(inf);
    }
    return inf as unknown as SharedInformer<T>;
  }

  /** CacheOptions.name. */
  get name(): string | undefined {
    return this.opts.name;
  }

  /** The informers created so far, one per kind. */
  informerList(): SharedInformer[] {
    return [...this.informers.values()];
  }

  /** Calls `listener` with each informer created from now on (jobs that follow every kind, e.g. the resync). */
  onInformerCreated(listener: (informer: SharedInformer) => void): () => void {
    this.informerListeners.add(listener);
    return () => this.informerListeners.delete(listener);
  }

  /** How many objects each informer holds, by `apiVersion/kind` (memory accounting). */
  informerSizes(): Record<string, number> {
    return Object.fromEntries([...this.informers].map(([k, inf]) => [k, inf.list().length]));
  }

  /**
   * Registers a field index on a kind (controller-runtime IndexField): lists with `matchingFields: { [field]: value }`
   * are then served from it instead of scanning the kind. Before the cache starts; registering the same extractor for
   * the same field again is a no-op (controllers sharing an index), another extractor for it is an error.
   */
  indexField(apiVersion: string, kind: string, field: string, extract: FieldExtractor): void {
    const gvk = `${apiVersion}/${kind}`;
    const fields = this.fieldIndexes.get(gvk) ?? new Map<string, FieldExtractor>();
    const existing = fields.get(field);
    if (existing === extract) return;
    if (existing)
      throw new Error(`cache: index "${field}" on ${apiVersion} ${kind} is already registered with another extractor`);
    if (this.started)
      throw new Error(`cache: index "${field}" on ${apiVersion} ${kind} must be registered before the cache starts`);
    const byNamespace: IndexFunc = (obj) => {
      const out: string[] = [];
      for (const v of extract(obj)) {
        out.push(indexKey(undefined, v));
        if (obj.metadata.namespace) out.push(indexKey(obj.metadata.namespace, v));
      }
      return out;
    };
    this.informerFor(apiVersion, kind).addIndexer(fieldIndexName(field), byNamespace);
    fields.set(field, extract);
    this.fieldIndexes.set(gvk, fields);
  }

  start(): void {
    this.started = true;
    for (const inf of this.informers.values()) inf.start();
  }

  async stop(): Promise<void> {
    this.started = false;
    await Promise.all([...this.informers.values()].map((i) => i.stop()));
  }

  /** True once every informer created so far has synced. */
  hasSynced(): boolean {
    return [...this.informers.values()].every((i) => i.hasSynced());
  }

  async waitForSync(timeoutMs?: number): Promise<boolean> {
    const results = await Promise.all([...this.informers.values()].map((i) => i.waitForSync(timeoutMs)));
    return results.every(Boolean);
  }

  /** Cached object; ApiError 404 when the cache does not hold it. */
  async get<T extends KubeObject = KubeObject>(ref: ObjectRef): Promise<T> {
    const obj = await this.tryGet<T>(ref);
    if (!obj) {
      throw new ApiError(404, {
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        code: 404,
        reason: 'NotFound',
        message: `${ref.kind} "${ref.name}" not found`,
        details: { name: ref.name, kind: ref.kind },
      });
    }
    return obj;
  }

  /** A copy of the cached object; with `readOnly`, the cached object itself, deep-frozen (see ListOptions.readOnly). */
  async tryGet<T extends KubeObject = KubeObject>(
    ref: ObjectRef,
    opts: { readOnly?: boolean } = {},
  ): Promise<T | undefined> {
    const inf = await this.synced<T>(ref.apiVersion, ref.kind);
    const obj = inf.get(ref.namespace, ref.name);
    if (!obj) return undefined;
    return opts.readOnly ? deepFreeze(obj) : cloneJson(obj);
  }

  async list<T extends KubeObject = KubeObject>(
    apiVersion: string,
    kind: string,
    opts: CacheListOptions = {},
  ): Promise<ObjectList<T>> {
    let selector: Selector;
    try {
      selector = parseSelector(opts.labelSelector ?? '');
    } catch (e) {
      // What the API server would answer for the same selector.
      if (e instanceof LabelSelectorError) {
        throw new ApiError(400, {
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          code: 400,
          reason: 'BadRequest',
          message: e.message,
        });
      }
      throw e;
    }
    const inf = await this.synced<T>(apiVersion, kind);
    const items = this.select(inf, opts, selector)
      .map((o) => ({ key: sortKey(o), o }))
      // Byte order of namespace/name, as the API server lists (and much cheaper than localeCompare).
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      .map(({ o }) => (opts.readOnly ? deepFreeze(o) : cloneJson(o)));
    return { apiVersion, kind: `${kind}List`, metadata: { resourceVersion: inf.lastResourceVersion() }, items };
  }

  /**
   * The stored objects a list would return, unsorted and NOT copies (read only), synchronously: for watch map
   * functions, which only read names. Empty before the kind's informer has synced. No label selector.
   */
  listStored<T extends KubeObject = KubeObject>(
    apiVersion: string,
    kind: string,
    opts: Omit<CacheListOptions, 'labelSelector'> = {},
  ): readonly T[] {
    const inf = this.informerFor<T>(apiVersion, kind);
    return this.select(inf, opts, everything());
  }

  private select<T extends KubeObject>(inf: SharedInformer<T>, opts: CacheListOptions, selector: Selector): T[] {
    const fields = this.fieldIndexes.get(`${inf.apiVersion}/${inf.kind}`);
    const matching = Object.entries(opts.matchingFields ?? {});
    for (const [field] of matching) {
      if (!fields?.has(field))
        throw new Error(
          `cache: no index "${field}" on ${inf.apiVersion} ${inf.kind}; register it with indexField before the cache starts`,
        );
    }
    // The first field chose the candidates from its index; the others are checked on them.
    const others = matching.slice(1);
    return this.candidates(inf, opts.namespace, matching, selector).filter(
      (o) =>
        others.every(([field, value]) => fields!.get(field)!(o).includes(value)) &&
        (!opts.namespace || o.metadata.namespace === opts.namespace) &&
        selector.matches(o.metadata.labels) &&
        (!opts.filter || opts.filter(o)),
    );
  }

  /** The smallest index bucket that holds every result: a field match, an indexed `label=value`, the namespace, or all. */
  private candidates<T extends KubeObject>(
    inf: SharedInformer<T>,
    namespace: string | undefined,
    matching: [string, string][],
    selector: Selector,
  ): T[] {
    if (matching.length) return inf.byIndex(fieldIndexName(matching[0][0]), indexKey(namespace, matching[0][1]));
    for (const r of selector.requirements) {
      const field = labelIndexField(r.key);
      const value = selector.requiresExactMatch(r.key);
      if (value !== undefined && this.fieldIndexes.get(`${inf.apiVersion}/${inf.kind}`)?.has(field)) {
        return inf.byIndex(fieldIndexName(field), indexKey(namespace, value));
      }
    }
    return namespace ? inf.byIndex(NAMESPACE_INDEX, namespace) : inf.list();
  }

  /**
   * Resolves true once the cache has observed `resourceVersion` for the object (its cached copy is at least that new,
   * or the informer has seen a later resourceVersion, e.g. the object was deleted since); false after timeoutMs, or
   * at once when `signal` aborts (a reconcile's context: the controller is stopping).
   */
  async waitForResourceVersion(
    ref: ObjectRef,
    resourceVersion: string,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<boolean> {
    const inf = await this.synced(ref.apiVersion, ref.kind);
    return this.waitUntil(
      inf,
      () =>
        isAtLeast(inf.get(ref.namespace, ref.name)?.metadata.resourceVersion, resourceVersion) ||
        isAtLeast(inf.lastResourceVersion(), resourceVersion),
      timeoutMs,
      signal,
    );
  }

  /**
   * Resolves true once the cache no longer holds the object `uid` (the write that removed its last finalizer
   * answers with its last version, which the cache may already have: waitForResourceVersion cannot tell); false after
   * timeoutMs, or at once when `signal` aborts.
   */
  async waitForGone(ref: ObjectRef, uid: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    const inf = await this.synced(ref.apiVersion, ref.kind);
    return this.waitUntil(inf, () => inf.get(ref.namespace, ref.name)?.metadata.uid !== uid, timeoutMs, signal);
  }

  /**
   * Until the cache shows `written`, the server's answer to this process's own write: its resourceVersion, or its
   * absence when that write removed the last finalizer of an object being deleted (waitForGone).
   */
  waitForWrite(written: KubeObject, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    const ref = refOf(written);
    if (written.metadata.deletionTimestamp && !written.metadata.finalizers?.length)
      return this.waitForGone(ref, written.metadata.uid!, timeoutMs, signal);
    return this.waitForResourceVersion(ref, written.metadata.resourceVersion!, timeoutMs, signal);
  }

  private waitUntil(
    inf: SharedInformer<KubeObject>,
    observed: () => boolean,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<boolean> {
    if (observed()) return Promise.resolve(true);
    if (signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const finish = (v: boolean) => {
        unsubscribe();
        this.clock.clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve(v);
      };
      const onAbort = () => finish(observed());
      const unsubscribe = inf.onResourceVersion(() => observed() && finish(true));
      const timer = this.clock.setTimeout(() => finish(observed()), timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private async synced<T extends KubeObject>(apiVersion: string, kind: string): Promise<SharedInformer<T>> {
    const inf = this.informerFor<T>(apiVersion, kind);
    if (!inf.hasSynced()) {
      inf.start();
      if (!(await inf.waitForSync(this.opts.syncTimeoutMs ?? DEFAULT_SYNC_TIMEOUT_MS))) {
        throw new ApiError(503, {
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          code: 503,
          reason: 'ServiceUnavailable',
          message: `cache for ${apiVersion} ${kind} did not sync`,
        });
      }
    }
    return inf;
  }
}

function sortKey(o: KubeObject): string {
  return `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
}

/** Resource versions are opaque, but numeric ones (etcd revisions, our API server) can be ordered. */
export function isAtLeast(candidate: string | undefined, wanted: string): boolean {
  if (!candidate) return false;
  if (/^\d+$/.test(candidate) && /^\d+$/.test(wanted)) return BigInt(candidate) >= BigInt(wanted);
  return candidate === wanted;
}
