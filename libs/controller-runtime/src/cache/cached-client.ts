import { KubeObject, ObjectList } from '@capi/apimachinery';
import {
  ApplyOptions,
  Client,
  DeleteOptions,
  ListOptions,
  ObjectRef,
  PatchOptions,
  PatchType,
  WatchEvent,
  WatchHandle,
  WatchOptions,
  WriteOptions,
} from '../client/types';
import { InformerCache } from './cache';

/**
 * controller-runtime's delegating client: get/tryGet/list read the informer cache, everything else goes to the API.
 * A list with fieldSelector, limit/continue or resourceVersion cannot be served by the cache and goes to the API;
 * matchingFields are served from the cache's field indexes.
 */
export class CachedClient implements Client {
  constructor(
    private readonly cache: InformerCache,
    private readonly direct: Client,
  ) {}

  get<T extends KubeObject = KubeObject>(ref: ObjectRef): Promise<T> {
    return this.cache.get<T>(ref);
  }

  tryGet<T extends KubeObject = KubeObject>(ref: ObjectRef): Promise<T | undefined> {
    return this.cache.tryGet<T>(ref);
  }

  list<T extends KubeObject = KubeObject>(
    apiVersion: string,
    kind: string,
    opts: ListOptions = {},
  ): Promise<ObjectList<T>> {
    if (opts.fieldSelector || opts.limit || opts.continue || opts.resourceVersion)
      return this.direct.list<T>(apiVersion, kind, opts);
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
    return this.direct.update(obj, opts);
  }

  updateStatus<T extends KubeObject = KubeObject>(obj: T, opts?: WriteOptions): Promise<T> {
    return this.direct.updateStatus(obj, opts);
  }

  patch<T extends KubeObject = KubeObject>(
    ref: ObjectRef,
    type: PatchType,
    patch: unknown,
    opts?: PatchOptions,
  ): Promise<T> {
    return this.direct.patch<T>(ref, type, patch, opts);
  }

  apply<T extends KubeObject = KubeObject>(obj: KubeObject, opts: ApplyOptions): Promise<T> {
    return this.direct.apply<T>(obj, opts);
  }

  delete(ref: ObjectRef, opts?: DeleteOptions): Promise<void> {
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
}
