import { KubeObject, ObjectList } from '@capi/apimachinery';
import {
  ApplyOptions,
  Client,
  DeleteOptions,
  ListOptions,
  ObjectRef,
  PatchBuilder,
  PatchOptions,
  PatchType,
  refOf,
  WatchEvent,
  WatchHandle,
  WatchOptions,
  WriteOptions,
} from '../client/types';
import { InformerCache, kindKey } from './cache';
import { EARLIER_WRITES_CACHE_WAIT_MS, InFlightWrites } from './in-flight-writes';

export interface CachedClientOptions {
  /**
   * Kinds (`apiVersion/kind`, see kindKey) read from the API instead of the cache (controller-runtime's
   * client.CacheOptions.DisableFor): no informer is started for them by a read.
   */
  disableFor?: readonly string[];
}

/**
 * controller-runtime's delegating client: get/tryGet/list read the informer cache, everything else goes to the API.
 * A list with fieldSelector, limit/continue or resourceVersion cannot be served by the cache and goes to the API;
 * matchingFields are served from the cache's field indexes. A patch given as a PatchBuilder is built once this client's
 * earlier writes to the same object are answered and in the cache (InFlightWrites).
 */
export class CachedClient implements Client {
  private readonly inFlight = new InFlightWrites();
  private readonly uncached: ReadonlySet<string>;

  constructor(
    private readonly cache: InformerCache,
    private readonly direct: Client,
    opts: CachedClientOptions = {},
  ) {
    this.uncached = new Set(opts.disableFor ?? []);
  }

  get<T extends KubeObject = KubeObject>(ref: ObjectRef): Promise<T> {
    return this.cached(ref.apiVersion, ref.kind) ? this.cache.get<T>(ref) : this.direct.get<T>(ref);
  }

  tryGet<T extends KubeObject = KubeObject>(ref: ObjectRef): Promise<T | undefined> {
    return this.cached(ref.apiVersion, ref.kind) ? this.cache.tryGet<T>(ref) : this.direct.tryGet<T>(ref);
  }

  list<T extends KubeObject = KubeObject>(
    apiVersion: string,
    kind: string,
    opts: ListOptions = {},
  ): Promise<ObjectList<T>> {
    // A metadata-only list is the server's (this cache holds whole objects; a metadata cache is an InformerCache of
    // its own, see ByObject.metadataOnly).
    const live = opts.fieldSelector || opts.limit || opts.continue || opts.resourceVersion || opts.metadataOnly;
    if (!this.cached(apiVersion, kind) || live) return this.direct.list<T>(apiVersion, kind, opts);
    return this.cache.list<T>(apiVersion, kind, {
      namespace: opts.namespace,
      labelSelector: opts.labelSelector,
      matchingFields: opts.matchingFields,
      readOnly: opts.readOnly,
    });
  }

  create<T extends KubeObject = KubeObject>(obj: T, opts?: WriteOptions): Promise<T> {
    return this.direct.create(obj, opts);
  }

  update<T extends KubeObject = KubeObject>(obj: T, opts?: WriteOptions): Promise<T> {
    return this.trackedObject(obj, opts, this.direct.update(obj, opts));
  }

  updateStatus<T extends KubeObject = KubeObject>(obj: T, opts?: WriteOptions): Promise<T> {
    return this.trackedObject(obj, opts, this.direct.updateStatus(obj, opts));
  }

  patch<T extends KubeObject = KubeObject>(
    ref: ObjectRef,
    type: PatchType,
    patch: unknown,
    opts?: PatchOptions,
  ): Promise<T> {
    if (typeof patch === 'function' && !opts?.dryRun) patch = this.afterEarlierWrites(ref, patch as PatchBuilder);
    return this.tracked(ref, opts, this.direct.patch<T>(ref, type, patch, opts));
  }

  apply<T extends KubeObject = KubeObject>(obj: KubeObject, opts: ApplyOptions): Promise<T> {
    return this.trackedObject(obj, opts, this.direct.apply<T>(obj, opts));
  }

  delete(ref: ObjectRef, opts?: DeleteOptions): Promise<KubeObject | undefined> {
    return this.direct.delete(ref, opts);
  }

  createSubresource<T = KubeObject>(
    ref: ObjectRef,
    subresource: string,
    body: KubeObject,
    opts?: WriteOptions,
  ): Promise<T> {
    return this.direct.createSubresource<T>(ref, subresource, body, opts);
  }

  watch<T extends KubeObject = KubeObject>(
    apiVersion: string,
    kind: string,
    opts: WatchOptions,
    onEvent: (ev: WatchEvent<T>) => void,
  ): Promise<WatchHandle> {
    return this.direct.watch(apiVersion, kind, opts, onEvent);
  }

  private cached(apiVersion: string, kind: string): boolean {
    return this.uncached.size === 0 || !this.uncached.has(kindKey(apiVersion, kind));
  }

  private tracked<T>(ref: ObjectRef, opts: WriteOptions | undefined, write: Promise<T>): Promise<T> {
    return opts?.dryRun ? write : this.inFlight.track(ref, write);
  }

  /** An object without a name is refused by the server client (400), not tracked. */
  private trackedObject<T>(obj: KubeObject, opts: WriteOptions | undefined, write: Promise<T>): Promise<T> {
    return obj.metadata?.name ? this.tracked(refOf(obj), opts, write) : write;
  }

  /** `build`, run once the writes to `ref` pending now are answered and the cache shows them. */
  private afterEarlierWrites(ref: ObjectRef, build: PatchBuilder): PatchBuilder {
    const earlier = this.inFlight.before(ref);
    if (!earlier) return build;
    return async () => {
      const versions = (await earlier).filter((v): v is string => !!v);
      // A kind read from the API shows every answered write: no cache to wait for.
      if (!this.cached(ref.apiVersion, ref.kind)) return build();
      // Each in turn; one the cache already shows (or has gone past) returns at once.
      for (const rv of versions) await this.cache.waitForResourceVersion(ref, rv, EARLIER_WRITES_CACHE_WAIT_MS);
      return build();
    };
  }
}
