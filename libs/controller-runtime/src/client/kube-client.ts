import { KubeConfig } from '@kubernetes/client-node';
import { ApiError, isNotFound } from './errors';
import { ClientMetrics, ClientVerb, WRITE_VERBS } from './client-metrics';
import type { LeadershipFence } from '../leader/fence';
import { RestMapper, ResourceMapping, groupVersionPath } from './rest-mapper';
import { METADATA_ONLY_ACCEPT, METADATA_ONLY_LIST_ACCEPT, metadataOnly } from './metadata-only';
import { SendOrder } from './send-order';
import { ClientRateLimit, RequestRateLimiter, TokenBucketsByResource } from './token-bucket';
import { BodyNotBuiltError, RawRequest, Transport, readBody, toApiError } from './transport';
import type { ApiWarningHandler } from './warnings';
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
} from './types';

/**
 * Timeout of a non-watch request (and of discovery). Not upstream's: client-go's rest.Config.Timeout defaults to none;
 * here a hung request must not hold a reconcile forever.
 */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

export interface KubeClientOptions {
  /** Refuses writes of a deposed leader (the Manager binds it when leader election is on). */
  fence?: LeadershipFence;
  metrics?: ClientMetrics;
  /** Default field manager for writes without one. */
  fieldManager?: string;
  /** Timeout of non-watch requests; default DEFAULT_REQUEST_TIMEOUT_MS. */
  requestTimeoutMs?: number;
  /**
   * Client-side rate limit (upstream --kube-api-qps/--kube-api-burst, client-go's token bucket): each request,
   * discovery and a watch's opening request included, waits for a token of its resource's bucket: a bucket per kind
   * (apiVersion and kind, a subresource with its object's) and one for discovery, as upstream's client has
   * (TokenBucketsByResource). Default: none; a RequestRateLimiter given instead is shared by every request (tests).
   */
  rateLimit?: ClientRateLimit | RequestRateLimiter;
  /** Where the API server's warnings go (default: logged as controller-runtime does). */
  warnings?: ApiWarningHandler;
  /** User-Agent header (see TransportOptions.userAgent). */
  userAgent?: string;
}

const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
};

/** Direct API client: every call is an HTTP request to the server in the kubeconfig. */
export class KubeClient implements Client {
  readonly mapper: RestMapper;
  private readonly transport: Transport;
  private readonly metrics?: ClientMetrics;
  private readonly sendOrder = new SendOrder();
  /** Per-resource token buckets when a qps/burst limit is given. */
  private readonly buckets?: TokenBucketsByResource;

  constructor(
    kubeConfig: KubeConfig,
    private readonly opts: KubeClientOptions = {},
  ) {
    const limit = opts.rateLimit;
    if (limit && !('wait' in limit) && limit.qps > 0) this.buckets = new TokenBucketsByResource(limit);
    this.transport = new Transport(kubeConfig, {
      rateLimiter: limit && 'wait' in limit ? limit : undefined,
      warnings: opts.warnings,
      userAgent: opts.userAgent,
    });
    this.metrics = opts.metrics;
    this.mapper = new RestMapper(
      this.transport,
      () => this.observe('discovery', 'GET', '', undefined, 200),
      opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      this.buckets?.for('discovery'),
    );
  }

  async get<T extends KubeObject = KubeObject>(ref: ObjectRef): Promise<T> {
    const m = await this.mapping(ref.apiVersion, ref.kind);
    return this.call('get', m, undefined, {
      method: 'GET',
      path: objectPath(m, this.namespaceFor(m, ref.namespace), ref.name),
    });
  }

  async tryGet<T extends KubeObject = KubeObject>(ref: ObjectRef): Promise<T | undefined> {
    try {
      return await this.get<T>(ref);
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }

  async list<T extends KubeObject = KubeObject>(
    apiVersion: string,
    kind: string,
    opts: ListOptions = {},
  ): Promise<ObjectList<T>> {
    const m = await this.mapping(apiVersion, kind);
    const list = await this.call<ObjectList<T>>('list', m, undefined, {
      method: 'GET',
      path: collectionPath(m, opts.namespace),
      query: {
        labelSelector: opts.labelSelector,
        fieldSelector: withMatchingFields(opts.fieldSelector, opts.matchingFields),
        limit: opts.limit,
        continue: opts.continue,
        resourceVersion: opts.resourceVersion,
      },
      ...(opts.metadataOnly ? { accept: METADATA_ONLY_LIST_ACCEPT } : {}),
    });
    // Items in a list response carry no apiVersion/kind on a real server; fill them in for callers.
    if (opts.metadataOnly) {
      list.items = (list.items ?? []).map((o) => metadataOnly(o, apiVersion, kind) as T);
      return Object.assign(list, { apiVersion, kind: `${kind}List` });
    }
    list.items = list.items ?? [];
    for (const item of list.items) {
      item.apiVersion = apiVersion;
      item.kind = kind;
    }
    return list;
  }

  async create<T extends KubeObject = KubeObject>(obj: T, opts: WriteOptions = {}): Promise<T> {
    const m = await this.mapping(obj.apiVersion, obj.kind);
    return this.call('create', m, undefined, {
      method: 'POST',
      path: collectionPath(m, this.namespaceFor(m, obj.metadata?.namespace)),
      query: this.writeQuery(opts),
      body: obj,
    });
  }

  async update<T extends KubeObject = KubeObject>(obj: T, opts: WriteOptions = {}): Promise<T> {
    return this.put(obj, opts, undefined);
  }

  async updateStatus<T extends KubeObject = KubeObject>(obj: T, opts: WriteOptions = {}): Promise<T> {
    return this.put(obj, opts, 'status');
  }

  async patch<T extends KubeObject = KubeObject>(
    ref: ObjectRef,
    type: PatchType,
    patch: unknown,
    opts: PatchOptions = {},
  ): Promise<T> {
    const m = await this.mapping(ref.apiVersion, ref.kind);
    return this.call(
      'patch',
      m,
      opts.subresource,
      {
        method: 'PATCH',
        path: objectPath(m, this.namespaceFor(m, ref.namespace), ref.name, opts.subresource),
        query: this.writeQuery(opts),
        body: patch,
        contentType: PATCH_CONTENT_TYPES[type],
      },
      !opts.dryRun,
    );
  }

  async apply<T extends KubeObject = KubeObject>(obj: KubeObject, opts: ApplyOptions): Promise<T> {
    if (!opts?.fieldManager) throw badRequest('server-side apply requires a fieldManager');
    if (!obj.metadata?.name) throw badRequest(`apply of ${obj.kind} requires metadata.name`);
    const m = await this.mapping(obj.apiVersion, obj.kind);
    return this.call(
      'apply',
      m,
      opts.subresource,
      {
        method: 'PATCH',
        path: objectPath(m, this.namespaceFor(m, obj.metadata.namespace), obj.metadata.name, opts.subresource),
        query: { ...this.writeQuery(opts), force: opts.force ? 'true' : undefined },
        body: obj,
        contentType: 'application/apply-patch+yaml',
      },
      !opts.dryRun,
    );
  }

  async delete(ref: ObjectRef, opts: DeleteOptions = {}): Promise<KubeObject | undefined> {
    const m = await this.mapping(ref.apiVersion, ref.kind);
    const body: Record<string, unknown> = { apiVersion: 'v1', kind: 'DeleteOptions' };
    if (opts.propagationPolicy) body.propagationPolicy = opts.propagationPolicy;
    if (opts.preconditions) body.preconditions = opts.preconditions;
    if (opts.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = opts.gracePeriodSeconds;
    if (opts.dryRun) body.dryRun = ['All'];
    const out = await this.call<KubeObject | undefined>(
      'delete',
      m,
      undefined,
      {
        method: 'DELETE',
        path: objectPath(m, this.namespaceFor(m, ref.namespace), ref.name),
        body,
      },
      !opts.dryRun,
    );
    // A Status (success) when the object is gone; the object itself while it is being deleted.
    return out && out.kind !== 'Status' && out.metadata?.resourceVersion ? out : undefined;
  }

  async createSubresource<T = KubeObject>(
    ref: ObjectRef,
    subresource: string,
    body: KubeObject,
    opts: WriteOptions = {},
  ): Promise<T> {
    if (!subresource) throw badRequest('a subresource name is required');
    const m = await this.mapping(ref.apiVersion, ref.kind);
    return this.call('create', m, subresource, {
      method: 'POST',
      path: objectPath(m, this.namespaceFor(m, ref.namespace), ref.name, subresource),
      query: this.writeQuery(opts),
      body,
    });
  }

  async watch<T extends KubeObject = KubeObject>(
    apiVersion: string,
    kind: string,
    opts: WatchOptions,
    onEvent: (ev: WatchEvent<T>) => void,
  ): Promise<WatchHandle> {
    const m = await this.mapping(apiVersion, kind);
    const abort = new AbortController();
    const req: RawRequest = {
      method: 'GET',
      path: collectionPath(m, opts.namespace),
      query: {
        watch: 'true',
        labelSelector: opts.labelSelector,
        fieldSelector: opts.fieldSelector,
        resourceVersion: opts.resourceVersion,
        allowWatchBookmarks: opts.allowWatchBookmarks ? 'true' : undefined,
        timeoutSeconds: opts.timeoutSeconds,
      },
      signal: abort.signal,
      rateLimiter: this.bucketOf(m),
      ...(opts.metadataOnly ? { accept: METADATA_ONLY_ACCEPT } : {}),
    };
    const deliver = opts.metadataOnly
      ? (ev: WatchEvent<T>) =>
          onEvent(ev.type === 'ERROR' ? ev : { type: ev.type, object: metadataOnly(ev.object, apiVersion, kind) as T })
      : onEvent;
    let res;
    try {
      res = await this.transport.open(req);
    } catch (e) {
      this.observe('watch', 'GET', kind, undefined, 0);
      throw e;
    }
    this.observe('watch', 'GET', kind, undefined, res.statusCode ?? 0);
    const stream = res;
    const done = new Promise<void>((resolve, reject) => {
      if ((stream.statusCode ?? 0) >= 300) {
        readBody(stream).then((text) => reject(toApiError(stream.statusCode ?? 0, text)), reject);
        return;
      }
      let buffered = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => {
        buffered += chunk;
        let nl: number;
        while ((nl = buffered.indexOf('\n')) >= 0) {
          const line = buffered.slice(0, nl).trim();
          buffered = buffered.slice(nl + 1);
          if (!line) continue;
          try {
            deliver(JSON.parse(line) as WatchEvent<T>);
          } catch (e) {
            // A handler bug or a garbled line must not kill the stream silently; end the watch with the error.
            stream.destroy(e as Error);
          }
        }
      });
      stream.on('end', () => resolve());
      stream.on('close', () => resolve());
      stream.on('error', (e) => (abort.signal.aborted ? resolve() : reject(e)));
    });
    // Swallow unhandled-rejection noise if the caller only calls stop().
    done.catch(() => undefined);
    return { stop: () => abort.abort(), done };
  }

  /** Closes keep-alive connections. */
  close(): void {
    this.transport.close();
  }

  private async put<T extends KubeObject>(obj: T, opts: WriteOptions, subresource: 'status' | undefined): Promise<T> {
    if (!obj.metadata?.name) throw badRequest(`update of ${obj.kind} requires metadata.name`);
    const m = await this.mapping(obj.apiVersion, obj.kind);
    return this.call(
      'update',
      m,
      subresource,
      {
        method: 'PUT',
        path: objectPath(m, this.namespaceFor(m, obj.metadata.namespace), obj.metadata.name, subresource),
        query: this.writeQuery(opts),
        body: obj,
      },
      !opts.dryRun,
    );
  }

  /** The token bucket of a kind's requests (undefined: the transport's shared limiter, if any). */
  private bucketOf(m: ResourceMapping): RequestRateLimiter | undefined {
    return this.buckets?.for(`${m.apiVersion}/${m.kind}`);
  }

  private mapping(apiVersion: string, kind: string): Promise<ResourceMapping> {
    if (!apiVersion || !kind) throw badRequest('apiVersion and kind are required');
    return this.mapper.mapping(apiVersion, kind);
  }

  private writeQuery(opts: WriteOptions): Record<string, string | undefined> {
    return { fieldManager: opts.fieldManager ?? this.opts.fieldManager, dryRun: opts.dryRun ? 'All' : undefined };
  }

  private namespaceFor(m: ResourceMapping, namespace: string | undefined): string | undefined {
    if (!m.namespaced) return undefined;
    if (!namespace) throw badRequest(`${m.kind} is namespaced: metadata.namespace is required`);
    return namespace;
  }

  /** `ordered`: a write to one object (req.path), sent in call order with the others to it, its subresources' too. */
  private async call<T>(
    verb: ClientVerb,
    m: ResourceMapping,
    subresource: string | undefined,
    req: RawRequest,
    ordered = false,
  ): Promise<T> {
    const kind = m.kind;
    // A deposed leader writes nothing (LeadershipFence); the lease itself and Events are not the work it guards.
    if (WRITE_VERBS.includes(verb) && kind !== 'Lease' && kind !== 'Event')
      this.opts.fence?.check(`${verb} ${kind}${subresource ? `/${subresource}` : ''}`);
    const object = subresource ? req.path.slice(0, -(subresource.length + 1)) : req.path;
    const queued = ordered ? this.sendOrder.enter(object, req.body) : undefined;
    if (queued) req = { ...req, body: queued.body };
    let status = 0;
    try {
      const out = await this.transport.json<T>(
        { ...req, rateLimiter: this.bucketOf(m), timeoutMs: this.opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS },
        (code) => (status = code),
      );
      this.observe(verb, req.method, kind, subresource, status);
      return out;
    } catch (e) {
      if (e instanceof BodyNotBuiltError) throw e.cause;
      this.observe(verb, req.method, kind, subresource, e instanceof ApiError ? e.code : status);
      throw e;
    } finally {
      queued?.done();
    }
  }

  private observe(
    verb: ClientVerb,
    method: RawRequest['method'],
    kind: string,
    subresource: string | undefined,
    code: number,
  ): void {
    this.metrics?.observe({ verb, method, host: this.transport.host, kind, subresource, code });
  }
}

function badRequest(message: string): ApiError {
  return new ApiError(400, {
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    code: 400,
    reason: 'BadRequest',
    message,
  });
}

function collectionPath(m: ResourceMapping, namespace: string | undefined): string {
  const base = groupVersionPath(m.apiVersion);
  return m.namespaced && namespace
    ? `${base}/namespaces/${encodeURIComponent(namespace)}/${m.resource}`
    : `${base}/${m.resource}`;
}

function objectPath(m: ResourceMapping, namespace: string | undefined, name: string, subresource?: string): string {
  if (!name) throw badRequest(`${m.kind}: name is required`);
  const p = `${collectionPath(m, namespace)}/${encodeURIComponent(name)}`;
  return subresource ? `${p}/${subresource}` : p;
}

/** matchingFields as field selector terms (as controller-runtime's client does), after any explicit selector. */
function withMatchingFields(
  fieldSelector: string | undefined,
  fields: Record<string, string> | undefined,
): string | undefined {
  const terms = Object.entries(fields ?? {}).map(([k, v]) => `${k}=${v}`);
  if (!terms.length) return fieldSelector;
  return [fieldSelector, ...terms].filter(Boolean).join(',');
}
