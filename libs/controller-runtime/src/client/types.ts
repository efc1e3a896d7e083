// The client contract every controller, the SSA helper and the tests code against.
// Objects are plain JSON (as on the wire; their metadata types are @capi/apimachinery's): typed views live in
// @capi/api.
import type { KubeObject, ObjectList } from '@capi/apimachinery';

/** Identifies one object. `apiVersion` is "group/version" or "v1" for the core group. */
export interface ObjectRef {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
}

/** The reference of an object (controller-runtime's client.ObjectKeyFromObject, with its apiVersion and kind). */
export function refOf(obj: KubeObject): ObjectRef {
  return {
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    name: obj.metadata.name ?? '',
    namespace: obj.metadata.namespace,
  };
}

export interface ListOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /**
   * Exact field matches (controller-runtime MatchingFields). The cached client serves them from the informer's
   * secondary indexes (InformerCache.indexField; an error names a missing index); the API client sends them as a
   * field selector, which the server accepts only for the fields it supports.
   */
  matchingFields?: Record<string, string>;
  /**
   * The cached client returns the cache's own objects, deep-frozen, instead of copies (controller-runtime's
   * UnsafeDisableDeepCopy, made safe by the freeze): for reconciles that only read most of what they list; one that
   * keeps and changes an item copies it first. Lists from the API return fresh objects either way.
   */
  readOnly?: boolean;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  /** Only the items' metadata, as PartialObjectMetadata (client-go's metadata client, client/metadata-only.ts). */
  metadataOnly?: boolean;
}

export interface WriteOptions {
  fieldManager?: string;
  dryRun?: boolean;
}

export interface ApplyOptions extends WriteOptions {
  fieldManager: string;
  force?: boolean;
  subresource?: 'status';
}

export type PatchType = 'merge' | 'json' | 'strategic';

/** A patch body built when the request is about to be sent (Client.patch). */
export type PatchBuilder = () => Promise<unknown>;

export interface PatchOptions extends WriteOptions {
  subresource?: 'status';
}

export interface DeleteOptions {
  propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
  /**
   * Seconds before the object is deleted (metav1.DeleteOptions.gracePeriodSeconds): for Pods, 0 deletes at once (what
   * a kubelet sends once the containers are gone); unset uses the object's default (a Pod's
   * terminationGracePeriodSeconds).
   */
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEvent<T extends KubeObject = KubeObject> {
  type: WatchEventType;
  /** For ERROR events this is a metav1.Status object. */
  object: T;
}

export interface WatchOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
  timeoutSeconds?: number;
  /** Only the objects' metadata, as PartialObjectMetadata (client-go's metadata client, client/metadata-only.ts). */
  metadataOnly?: boolean;
}

export interface WatchHandle {
  /** Ends the watch; `done` then settles. */
  stop(): void;
  /** Settles when the watch ends (server closed, error or stop()). Rejects with ApiError on HTTP errors such as 410. */
  done: Promise<void>;
}

/**
 * CRUD + apply + watch against a Kubernetes(-compatible) API server.
 * Errors are thrown as ApiError carrying the server's Status.
 */
export interface Client {
  get<T extends KubeObject = KubeObject>(ref: ObjectRef): Promise<T>;
  /** Like get, but returns undefined on 404. */
  tryGet<T extends KubeObject = KubeObject>(ref: ObjectRef): Promise<T | undefined>;
  list<T extends KubeObject = KubeObject>(apiVersion: string, kind: string, opts?: ListOptions): Promise<ObjectList<T>>;
  create<T extends KubeObject = KubeObject>(obj: T, opts?: WriteOptions): Promise<T>;
  update<T extends KubeObject = KubeObject>(obj: T, opts?: WriteOptions): Promise<T>;
  updateStatus<T extends KubeObject = KubeObject>(obj: T, opts?: WriteOptions): Promise<T>;
  /**
   * `patch` is the body, or a function building it: called once the client-side rate limiter admits the request,
   * right before it is sent, so a patch guarded by a resourceVersion read from the cache carries the newest one (under
   * a saturated --kube-api-qps the wait is seconds, long enough for another writer to move the object on).
   */
  patch<T extends KubeObject = KubeObject>(
    ref: ObjectRef,
    type: PatchType,
    patch: unknown | PatchBuilder,
    opts?: PatchOptions,
  ): Promise<T>;
  /** Server-side apply (application/apply-patch+yaml with a JSON body). */
  apply<T extends KubeObject = KubeObject>(obj: KubeObject, opts: ApplyOptions): Promise<T>;
  /**
   * Returns the object when the server answers with it: still there and deleting (finalizers or a grace period), with
   * its new resourceVersion (Pods answer with the object even once gone); undefined when the server answers with a
   * Status, the object being gone (Cluster API util/controller ClientWithDeleteResponse).
   */
  delete(ref: ObjectRef, opts?: DeleteOptions): Promise<KubeObject | undefined>;
  /**
   * POST of `body` to a subresource of the object `ref` (controller-runtime's `SubResource(name).Create`), e.g. a
   * policy/v1 Eviction to `pods/<name>/eviction`. Returns the server's response (an object or a Status).
   */
  createSubresource<T = KubeObject>(
    ref: ObjectRef,
    subresource: string,
    body: KubeObject,
    opts?: WriteOptions,
  ): Promise<T>;
  watch<T extends KubeObject = KubeObject>(
    apiVersion: string,
    kind: string,
    opts: WatchOptions,
    onEvent: (ev: WatchEvent<T>) => void,
  ): Promise<WatchHandle>;
}
