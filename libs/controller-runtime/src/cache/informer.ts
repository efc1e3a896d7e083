import { Logger } from '@nestjs/common';
import { isGone } from '../client/errors';
import { Client, WatchEvent, WatchHandle } from '../client/types';
import { type Clock, realClock, sleep, KubeObject } from '@capi/apimachinery';

/** First wait after a watch the server ended at once without events; doubles up to DEFAULT_MAX_BACKOFF_MS. */
const DEFAULT_INITIAL_BACKOFF_MS = 200;
/** client-go reflector's backoff cap (30 s). */
const DEFAULT_MAX_BACKOFF_MS = 30_000;
/** A watch that ends sooner than this without an event counts as ended at once. */
const EMPTY_WATCH_MS = 1000;
/** client-go reflector's minWatchTimeout (5 min); each watch asks for a random timeout between it and twice it. */
const MIN_WATCH_TIMEOUT_SECONDS = 300;

export interface InformerEventHandler<T extends KubeObject = KubeObject> {
  onAdd?(obj: T): void;
  onUpdate?(oldObj: T, newObj: T): void;
  onDelete?(obj: T): void;
}

/** Applied to each listed or watched object before the informer stores it and hands it to its handlers. */
export type TransformFunc = (obj: KubeObject) => KubeObject;

export interface SharedInformerOptions {
  namespace?: string;
  labelSelector?: string;
  /** List page size (limit); default 500. */
  pageSize?: number;
  clock?: Clock;
  /** Backoff after list/watch failures other than 410: starts here, doubles up to maxBackoffMs. */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** Server-side watch timeout; the informer re-watches from the last seen resourceVersion afterwards. */
  watchTimeoutSeconds?: number;
  /** Applied to every listed or watched object before it is stored (controller-runtime's cache TransformFunc). */
  transform?: TransformFunc;
  /** List and watch only the objects' metadata (a metadata informer: PartialObjectMetadata under the kind). */
  metadataOnly?: boolean;
}

/** Index values of an object (client-go IndexFunc): the object is listed under each. */
export type IndexFunc<T extends KubeObject = KubeObject> = (obj: T) => string[];

/** Name of the index every informer keeps: objects by metadata.namespace ('' for cluster-scoped). */
export const NAMESPACE_INDEX = 'namespace';

/** Key of an object in an informer store. */
export const objectKey = (namespace: string | undefined, name: string): string =>
  namespace ? `${namespace}/${name}` : name;

class WatchExpiredError extends Error {}

/**
 * Keeps a local copy of one kind (optionally one namespace / label selector) in sync with the server:
 * paged list, then watch from the list's resourceVersion with bookmarks; after a dropped watch it resumes from the
 * last resourceVersion it saw; on 410 Gone (too old resource version) it relists and emits the differences.
 * Handlers receive the stored objects: they must not mutate them.
 */
export class SharedInformer<T extends KubeObject = KubeObject> {
  private readonly store = new Map<string, T>();
  private readonly indexers = new Map<string, IndexFunc<T>>();
  /** index name → index value → store keys. */
  private readonly indices = new Map<string, Map<string, Set<string>>>();
  private readonly handlers = new Set<InformerEventHandler<T>>();
  private readonly rvListeners = new Set<() => void>();
  private readonly syncWaiters: (() => void)[] = [];
  private readonly clock: Clock;
  private readonly log: Logger;
  private lastRv?: string;
  private synced = false;
  private running?: Promise<void>;
  private readonly abort = new AbortController();
  private currentWatch?: WatchHandle;
  /** Counters for diagnostics and tests. */
  readonly stats = { lists: 0, watches: 0, relistsAfterGone: 0, errors: 0, resyncs: 0 };

  constructor(
    private readonly client: Client,
    readonly apiVersion: string,
    readonly kind: string,
    private readonly opts: SharedInformerOptions = {},
  ) {
    this.clock = opts.clock ?? realClock;
    this.log = new Logger(`SharedInformer(${kind})`);
    this.addIndexer(NAMESPACE_INDEX, (o) => [o.metadata.namespace ?? '']);
  }

  /**
   * Adds a secondary index, kept in sync on every add/update/delete and relist. Only before start (as client-go's
   * AddIndexers used to require): an index registered later would miss nothing, but would be built from a store that
   * handlers are already reading, so the order is fixed instead.
   */
  addIndexer(name: string, fn: IndexFunc<T>): void {
    if (this.running)
      throw new Error(
        `informer ${this.apiVersion} ${this.kind}: index "${name}" must be added before the informer starts`,
      );
    if (this.indexers.has(name))
      throw new Error(`informer ${this.apiVersion} ${this.kind}: index "${name}" already exists`);
    this.indexers.set(name, fn);
    this.indices.set(name, new Map());
  }

  hasIndexer(name: string): boolean {
    return this.indexers.has(name);
  }

  /** Stored objects listed under `value` in index `name` (unordered, not copies). Throws when there is no such index. */
  byIndex(name: string, value: string): T[] {
    const index = this.indices.get(name);
    if (!index) throw new Error(`informer ${this.apiVersion} ${this.kind}: no index "${name}"`);
    const keys = index.get(value);
    if (!keys) return [];
    const out: T[] = [];
    for (const key of keys) out.push(this.store.get(key)!);
    return out;
  }

  /** Registers a handler; if the informer already has objects, it gets an add for each. Returns an unsubscribe fn. */
  addEventHandler(handler: InformerEventHandler<T>): () => void {
    this.handlers.add(handler);
    for (const obj of this.store.values()) this.safely(() => handler.onAdd?.(obj));
    return () => this.handlers.delete(handler);
  }

  start(): void {
    if (this.running) return;
    this.running = this.run();
  }

  async stop(): Promise<void> {
    this.abort.abort();
    this.currentWatch?.stop();
    await this.running;
    this.syncWaiters.splice(0).forEach((w) => w());
  }

  hasSynced(): boolean {
    return this.synced;
  }

  /** Resolves true once the first list has been stored, false on timeout or stop. */
  waitForSync(timeoutMs?: number): Promise<boolean> {
    if (this.synced) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = timeoutMs !== undefined ? this.clock.setTimeout(() => resolve(this.synced), timeoutMs) : undefined;
      this.syncWaiters.push(() => {
        if (timer) this.clock.clearTimeout(timer);
        resolve(this.synced);
      });
    });
  }

  get(namespace: string | undefined, name: string): T | undefined {
    return this.store.get(objectKey(namespace, name));
  }

  list(): T[] {
    return [...this.store.values()];
  }

  /**
   * Re-delivers every stored object to the handlers as an update whose old and new object are the same one, as
   * client-go's resync does (DeltaFIFO.Resync queues a Sync delta per object, delivered as OnUpdate(old, new)): their
   * controllers reconcile what the cache holds though nothing changed (controller-runtime's SyncPeriod). Nothing
   * before the first sync or after stop. Returns how many objects were re-delivered.
   */
  resync(): number {
    if (!this.synced || this.abort.signal.aborted) return 0;
    this.stats.resyncs++;
    const objs = [...this.store.values()];
    for (const obj of objs) this.emit((h) => h.onUpdate?.(obj, obj));
    return objs.length;
  }

  /** The newest resourceVersion observed (list, event or bookmark). */
  lastResourceVersion(): string | undefined {
    return this.lastRv;
  }

  /** Called after every change of the observed resourceVersion. Returns an unsubscribe fn. */
  onResourceVersion(listener: () => void): () => void {
    this.rvListeners.add(listener);
    return () => this.rvListeners.delete(listener);
  }

  private async run(): Promise<void> {
    const initial = this.opts.initialBackoffMs ?? DEFAULT_INITIAL_BACKOFF_MS;
    const max = this.opts.maxBackoffMs ?? DEFAULT_MAX_BACKOFF_MS;
    let backoff = initial;
    let needList = true;
    while (!this.abort.signal.aborted) {
      try {
        if (needList) {
          await this.relist();
          needList = false;
        }
        const started = this.clock.now();
        const events = await this.watchOnce();
        if (events === 0 && this.clock.now() - started < EMPTY_WATCH_MS) {
          // A watch the server ends at once without events: do not spin.
          await sleep(this.clock, backoff, this.abort.signal);
          backoff = Math.min(backoff * 2, max);
        } else backoff = initial;
      } catch (e) {
        if (this.abort.signal.aborted) break;
        if (e instanceof WatchExpiredError || isGone(e)) {
          this.stats.relistsAfterGone++;
          needList = true;
          continue;
        }
        this.stats.errors++;
        this.log.warn(
          `list/watch ${this.apiVersion} ${this.kind} failed, retrying in ${backoff}ms: ${(e as Error).message}`,
        );
        await sleep(this.clock, backoff, this.abort.signal);
        backoff = Math.min(backoff * 2, max);
      }
    }
  }

  private async relist(): Promise<void> {
    this.stats.lists++;
    const items: T[] = [];
    let cont: string | undefined;
    let rv: string | undefined;
    do {
      const page = await this.client.list<T>(this.apiVersion, this.kind, {
        namespace: this.opts.namespace,
        labelSelector: this.opts.labelSelector,
        limit: this.opts.pageSize ?? 500,
        continue: cont,
        ...(this.opts.metadataOnly ? { metadataOnly: true } : {}),
      });
      if (this.abort.signal.aborted) return;
      for (const item of page.items) items.push(this.transformed(item));
      rv = page.metadata.resourceVersion;
      cont = page.metadata.continue || undefined;
    } while (cont);
    this.replace(items, rv);
  }

  /** Stores a fresh list, emitting add/update/delete for what changed since the last one. */
  private replace(items: T[], rv: string | undefined): void {
    const fresh = new Map(items.map((o) => [objectKey(o.metadata.namespace, o.metadata.name!), o]));
    for (const [key, old] of this.store) {
      if (!fresh.has(key)) {
        this.store.delete(key);
        this.reindex(key, old, undefined);
        this.emit((h) => h.onDelete?.(old));
      }
    }
    for (const [key, obj] of fresh) {
      const old = this.store.get(key);
      this.store.set(key, obj);
      this.reindex(key, old, obj);
      if (!old) this.emit((h) => h.onAdd?.(obj));
      else if (old.metadata.resourceVersion !== obj.metadata.resourceVersion) this.emit((h) => h.onUpdate?.(old, obj));
    }
    this.setRv(rv);
    if (!this.synced) {
      this.synced = true;
      this.syncWaiters.splice(0).forEach((w) => w());
    }
  }

  /** Runs one watch until it ends; returns how many events it delivered. */
  private async watchOnce(): Promise<number> {
    this.stats.watches++;
    let received = 0;
    let expired = false;
    let failure: Error | undefined;
    const timeout =
      this.opts.watchTimeoutSeconds ??
      MIN_WATCH_TIMEOUT_SECONDS + Math.floor(Math.random() * MIN_WATCH_TIMEOUT_SECONDS);
    // Events may arrive before client.watch() resolves, so the handle is looked up lazily.
    const opened: { handle?: WatchHandle } = {};
    let stopWhenOpen = false;
    const handle = await this.client.watch<T>(
      this.apiVersion,
      this.kind,
      {
        namespace: this.opts.namespace,
        labelSelector: this.opts.labelSelector,
        resourceVersion: this.lastRv,
        allowWatchBookmarks: true,
        timeoutSeconds: timeout,
        ...(this.opts.metadataOnly ? { metadataOnly: true } : {}),
      },
      (ev) => {
        if (expired || failure) return;
        received++;
        const outcome = this.onWatchEvent(ev);
        if (outcome === 'expired') expired = true;
        else if (outcome instanceof Error) failure = outcome;
        if (!expired && !failure) return;
        if (opened.handle) opened.handle.stop();
        else stopWhenOpen = true;
      },
    );
    opened.handle = handle;
    this.currentWatch = handle;
    if (this.abort.signal.aborted || stopWhenOpen) handle.stop();
    try {
      await handle.done;
    } finally {
      this.currentWatch = undefined;
    }
    if (expired) throw new WatchExpiredError('watch expired');
    if (failure) throw failure;
    return received;
  }

  private onWatchEvent(ev: WatchEvent<T>): 'ok' | 'expired' | Error {
    if (ev.type === 'ERROR') {
      const status = ev.object as unknown as { code?: number; message?: string };
      if (status.code === 410) return 'expired';
      return new Error(`watch error ${status.code ?? ''}: ${status.message ?? 'unknown'}`);
    }
    const rv = ev.object?.metadata?.resourceVersion;
    if (ev.type === 'BOOKMARK') {
      this.setRv(rv);
      return 'ok';
    }
    if (!ev.object?.metadata?.name) return 'ok';
    // Watch events of a real server carry apiVersion/kind; normalise in case they do not.
    ev.object.apiVersion = ev.object.apiVersion || this.apiVersion;
    ev.object.kind = ev.object.kind || this.kind;
    const obj = this.transformed(ev.object);
    const key = objectKey(obj.metadata.namespace, obj.metadata.name!);
    const old = this.store.get(key);
    if (ev.type === 'DELETED') {
      this.store.delete(key);
      this.reindex(key, old, undefined);
      this.emit((h) => h.onDelete?.(old ?? obj));
    } else {
      this.store.set(key, obj);
      this.reindex(key, old, obj);
      if (old) this.emit((h) => h.onUpdate?.(old, obj));
      else this.emit((h) => h.onAdd?.(obj));
    }
    this.setRv(rv);
    return 'ok';
  }

  /** The object after the transform; the object as it came if the transform throws. */
  private transformed(obj: T): T {
    if (!this.opts.transform) return obj;
    try {
      return this.opts.transform(obj) as T;
    } catch (e) {
      this.log.error(
        `transform failed on ${objectKey(obj.metadata?.namespace, obj.metadata?.name ?? '')}: ${(e as Error).message}`,
      );
      return obj;
    }
  }

  /** Moves `key` from the index values of `old` to those of `obj` (either may be absent). */
  private reindex(key: string, old: T | undefined, obj: T | undefined): void {
    for (const [name, fn] of this.indexers) {
      const index = this.indices.get(name)!;
      const before = old ? this.indexValues(name, fn, old) : [];
      const after = obj ? this.indexValues(name, fn, obj) : [];
      for (const v of before) {
        if (after.includes(v)) continue;
        const keys = index.get(v);
        keys?.delete(key);
        if (keys?.size === 0) index.delete(v);
      }
      for (const v of after) {
        let keys = index.get(v);
        if (!keys) index.set(v, (keys = new Set()));
        keys.add(key);
      }
    }
  }

  private indexValues(name: string, fn: IndexFunc<T>, obj: T): string[] {
    try {
      return fn(obj);
    } catch (e) {
      // A throwing index function must not break the store; the object is just not indexed under `name`.
      this.log.error(
        `index "${name}" failed on ${objectKey(obj.metadata.namespace, obj.metadata.name ?? '')}: ${(e as Error).message}`,
      );
      return [];
    }
  }

  private setRv(rv: string | undefined): void {
    if (!rv) return;
    this.lastRv = rv;
    for (const l of [...this.rvListeners]) this.safely(l);
  }

  private emit(fn: (h: InformerEventHandler<T>) => void): void {
    for (const h of [...this.handlers]) this.safely(() => fn(h));
  }

  private safely(fn: () => void): void {
    try {
      fn();
    } catch (e) {
      this.log.error(`event handler failed: ${(e as Error).stack ?? e}`);
    }
  }
}
