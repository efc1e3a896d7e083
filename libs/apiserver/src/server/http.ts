// HTTP layer: authentication, routing of Kubernetes REST paths, body decoding and Status responses.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import YAML from 'yaml';
import type { KubeObject, Status } from '@capi/apimachinery';
import * as discovery from './discovery';
import { evict } from './eviction';
import { answerReview } from './reviews';
import { groupVersionDocument, openapiIndex } from './openapi';
import { OPENAPI_V2_PROTOBUF_CONTENT_TYPE, openApiV2Format, openapiV2Document } from './openapi-v2';
import { encodeOpenApiV2 } from './openapi-v2-proto';
import type { Registry, ResourceInfo } from './registry';
import type { FieldValidation, PatchKind, Resources } from './resources';
import { badRequest, notFound, StatusError } from './status';
import { PathNotFound, resourceNotFound, sendPathNotFound, unmatchedPath } from './notfound';
import type { RequestMetrics } from './metrics';
import { toTable, wantsTable } from './table';
import {
  asPartialObjectMetadata,
  asPartialObjectMetadataList,
  requestedPartialMetadata,
  watchablePartialMetadata,
} from './partial-metadata';
import {
  decodeProtobufBody,
  decodeProtobufDeleteOptions,
  encodeBody,
  isProtobuf,
  NotAcceptable,
  responseFormat,
  supported as protobufServed,
  watchEncoding,
  type ResponseFormat,
} from './wire';
import { ScaleSubresource, scaleTable } from './scale';
import { isPortForward, portForwardPreflight, webSocketRequired } from './portforward';
import { checkNesting, MAX_REQUEST_BODY_BYTES, parseJsonBody, requestEntityTooLarge } from './limits';
import { deleteOptions, requestOptions, WebhookAdmission, type AttemptOptions } from '../admission';

export interface HttpDeps {
  registry: Registry;
  resources: Resources;
  token: string;
  metrics: RequestMetrics;
  version: Record<string, string>;
  bookmarkIntervalMs: number;
  onError: (err: unknown) => void;
}

interface Route {
  info: ResourceInfo;
  namespace: string | undefined;
  name?: string;
  subresource?: string;
  watch: boolean;
}

function send(
  res: ServerResponse,
  code: number,
  body: unknown,
  contentType = 'application/json',
  warnings: string[] = [],
  format: ResponseFormat = 'json',
): void {
  const encoded = encodeBody(body, format);
  const data = encoded.data;
  contentType = encoded.contentType ?? contentType;
  // kube's warning headers: code 299, agent "-", quoted text (kubectl prints each as "Warning: <text>").
  const warning = warnings.length ? { Warning: warnings.map((w) => `299 - ${JSON.stringify(w)}`) } : {};
  // An error Status asking the client to come back later says when in Retry-After, as kube's responsewriters do.
  const retry = (body as Status | undefined)?.details?.retryAfterSeconds;
  const retryAfter = typeof retry === 'number' && retry > 0 ? { 'Retry-After': String(retry) } : {};
  res.writeHead(code, {
    'Content-Type': contentType,
    'Content-Length': Buffer.byteLength(data),
    ...warning,
    ...retryAfter,
  });
  res.end(data);
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_REQUEST_BODY_BYTES) reject(requestEntityTooLarge());
      else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

const parseJson = parseJsonBody;

const UNKNOWN_FORMAT = 'the body of the request was in an unknown format - accepted media types include: ';

function checkedDepth<T>(body: T): T {
  checkNesting(body);
  return body;
}

/** An apply (or YAML) body: JSON is YAML, and JSON.parse copes with any depth where the YAML parser overflows the stack. */
function parseApplyBody(text: string): unknown {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    try {
      body = YAML.parse(text);
    } catch (e) {
      throw badRequest(`error decoding YAML: ${(e as Error).message}`);
    }
  }
  checkNesting(body);
  return body;
}

export function authorized(req: IncomingMessage, token: string): boolean {
  const m = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '');
  if (!m) return false;
  const a = Buffer.from(m[1].trim());
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Percent-decoded path segments; invalid encoding is the client's error (400), as Go's URL parsing makes it in kube. */
function decodePathSegments(path: string): string[] {
  return path
    .split('/')
    .filter(Boolean)
    .map((seg) => {
      try {
        return decodeURIComponent(seg);
      } catch {
        throw new StatusError(400, `invalid percent-encoding in path segment "${seg}"`, 'BadRequest');
      }
    });
}

/** Maps "/api/v1/..." and "/apis/<g>/<v>/..." to a resource route. */
export function parseResourcePath(registry: Registry, path: string): Route | undefined {
  const segs = decodePathSegments(path);
  let group: string;
  let rest: string[];
  if (segs[0] === 'api') {
    group = '';
    rest = segs.slice(1);
  } else if (segs[0] === 'apis' && segs.length >= 3) {
    group = segs[1];
    rest = segs.slice(2);
  } else return undefined;
  const version = rest[0];
  rest = rest.slice(1);
  let watch = false;
  if (rest[0] === 'watch') {
    watch = true;
    rest = rest.slice(1);
  }
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3 && !['status', 'finalize'].includes(rest[2])) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  if (rest.length < 1 || rest.length > 3) return undefined;
  const info = registry.lookup(group, version, rest[0]);
  if (!info) return undefined;
  if (namespace !== undefined && !info.namespaced) return undefined;
  return { info, namespace, name: rest[1], subresource: rest[2], watch };
}

type Query = URLSearchParams;
/**
 * A watch with allowWatchBookmarks gets a bookmark this many seconds before its timeoutSeconds (kube's cacheWatcher
 * nextBookmarkTime in k8s.io/apiserver/pkg/storage/cacher/cache_watcher.go: deadline - 2 s).
 */
const BOOKMARK_BEFORE_DEADLINE_S = 2;

const flag = (q: Query, k: string) => q.get(k) === 'true' || q.get(k) === '1';

export function createHandler(deps: HttpDeps) {
  const { registry, resources } = deps;
  const scale = new ScaleSubresource(resources);
  const webhooks = new WebhookAdmission(resources, registry);

  async function discoveryRoutes(req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean> {
    const accept = req.headers.accept;
    const p = path.replace(/\/+$/, '') || '/';
    if (p === '/version') return (send(res, 200, deps.version), true);
    if (p === '/api') {
      if (discovery.wantsAggregated(accept))
        return (send(res, 200, discovery.aggregated(registry, true), discovery.AGGREGATED_CONTENT_TYPE), true);
      return (send(res, 200, discovery.apiVersions()), true);
    }
    if (p === '/apis') {
      if (discovery.wantsAggregated(accept))
        return (send(res, 200, discovery.aggregated(registry, false), discovery.AGGREGATED_CONTENT_TYPE), true);
      return (send(res, 200, discovery.groupList(registry)), true);
    }
    if (p === '/openapi/v2') {
      const format = openApiV2Format(accept);
      if (!format) throw new StatusError(406, 'only application/json and protobuf are served', 'NotAcceptable');
      const doc = openapiV2Document(registry, deps.version.gitVersion ?? 'v0.0.0');
      if (format === 'json') return (send(res, 200, doc), true);
      const data = encodeOpenApiV2(doc);
      res.writeHead(200, { 'Content-Type': OPENAPI_V2_PROTOBUF_CONTENT_TYPE, 'Content-Length': data.length });
      return (res.end(data), true);
    }
    if (p === '/openapi/v3') return (send(res, 200, openapiIndex(registry)), true);
    let m = /^\/openapi\/v3\/(?:api\/([^/]+)|apis\/([^/]+)\/([^/]+))$/.exec(p);
    if (m) {
      const doc = m[1] ? groupVersionDocument(registry, '', m[1]) : groupVersionDocument(registry, m[2], m[3]);
      if (!doc) throw resourceNotFound();
      return (send(res, 200, doc), true);
    }
    m = /^\/api\/([^/]+)$/.exec(p) ?? /^\/apis\/([^/]+\/[^/]+)$/.exec(p);
    if (m) {
      const [g, v] = p.startsWith('/api/') ? ['', m[1]] : m[1].split('/');
      const list = discovery.resourceList(registry, g, v);
      if (!list) throw unmatchedPath(decodePathSegments(p));
      return (send(res, 200, list), true);
    }
    m = /^\/apis\/([^/]+)$/.exec(p);
    if (m) {
      const grp = discovery.group(registry, m[1]);
      if (!grp) throw unmatchedPath(decodePathSegments(p));
      return (send(res, 200, grp), true);
    }
    return false;
  }

  /**
   * The body of a write, by method and Content-Type as kube accepts them: POST/PUT take JSON, YAML or (built-in kinds)
   * protobuf, else 415 naming those; PATCH takes the patch types (no strategic merge for custom resources), else
   * go-restful's bare 415 (its routes match PATCH by Content-Type).
   */
  async function decodeWrite(
    req: IncomingMessage,
    info: ResourceInfo,
  ): Promise<{ body: unknown; patch?: PatchKind | 'apply' }> {
    const type = (req.headers['content-type'] ?? 'application/json').split(';')[0].trim().toLowerCase();
    const raw = await readBody(req);
    const text = () => raw.toString('utf8');
    if (req.method === 'PATCH') {
      switch (type) {
        case 'application/json-patch+json':
          return { body: parseJson(text()), patch: 'json' };
        case 'application/merge-patch+json':
          return { body: parseJson(text()), patch: 'merge' };
        case 'application/strategic-merge-patch+json':
          if (info.custom)
            throw new StatusError(
              415,
              `${UNKNOWN_FORMAT}application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml`,
              'UnsupportedMediaType',
            );
          return { body: parseJson(text()), patch: 'strategic' };
        case 'application/apply-patch+yaml':
          return { body: parseApplyBody(text()), patch: 'apply' };
        default:
          throw new StatusError(415, '415: Unsupported Media Type', 'UnsupportedMediaType', {});
      }
    }
    // Protobuf bodies nest as deep as their JSON form (a CRD's schema), so they get the same depth limit.
    if (isProtobuf(type)) return { body: checkedDepth(decodeProtobufBody(info, raw)) };
    if (type === 'application/json') return { body: parseJson(text()) };
    if (type === 'application/yaml') return { body: parseApplyBody(text()) };
    throw new StatusError(
      415,
      `${UNKNOWN_FORMAT}application/json, application/yaml${info.custom ? '' : ', application/vnd.kubernetes.protobuf'}`,
      'UnsupportedMediaType',
    );
  }

  function startWatch(req: IncomingMessage, res: ServerResponse, route: Route, q: Query, format: ResponseFormat): void {
    const table = wantsTable(req.headers.accept);
    const partial = requestedPartialMetadata(req.headers.accept, protobufServed(route.info));
    // Each event's object is a PartialObjectMetadata, as kube's watch transforms them (asked as a list: 406).
    if (partial) watchablePartialMetadata(partial);
    const encoding = watchEncoding(partial ? partial.format : table ? 'json' : format);
    res.writeHead(200, {
      'Content-Type': encoding.contentType,
      'Transfer-Encoding': 'chunked',
      'Cache-Control': 'no-cache',
    });
    res.flushHeaders();
    const write = (ev: { type: string; object: Record<string, any> }) => {
      // For kubectl's human output each event carries a one-row Table, as kube serves it.
      const out =
        table && ev.type !== 'ERROR' && ev.type !== 'BOOKMARK'
          ? {
              type: ev.type,
              object: toTable(route.info, [ev.object], { resourceVersion: ev.object.metadata?.resourceVersion }),
            }
          : partial && ev.type !== 'ERROR'
            ? { type: ev.type, object: asPartialObjectMetadata(partial, ev.object as KubeObject) }
            : ev;
      res.write(encoding.frame(out));
    };
    let stop = () => {};
    const timers: NodeJS.Timeout[] = [];
    const end = () => {
      stop();
      timers.forEach(clearTimeout);
      timers.forEach(clearInterval);
      res.end();
    };
    try {
      const initial = q.get('sendInitialEvents');
      stop = resources.watch(
        route.info,
        route.namespace,
        {
          labelSelector: q.get('labelSelector') ?? undefined,
          fieldSelector: q.get('fieldSelector') ?? undefined,
          resourceVersion: q.get('resourceVersion') ?? undefined,
          allowWatchBookmarks: flag(q, 'allowWatchBookmarks'),
          sendInitialEvents: initial === null ? undefined : initial === 'true',
        },
        write,
      );
    } catch (e) {
      // Like kube: a watch that cannot start is a 200 stream with one ERROR event (e.g. 410 Expired).
      write({
        type: 'ERROR',
        object: e instanceof StatusError ? e.toStatus() : new StatusError(500, String(e)).toStatus(),
      });
      res.end();
      return;
    }
    const timeout = Number(q.get('timeoutSeconds') ?? 0);
    if (flag(q, 'allowWatchBookmarks')) {
      timers.push(setInterval(() => write(resources.bookmark(route.info)), deps.bookmarkIntervalMs));
      // kube's cacheWatcher also sends one just before the watch's deadline: the client resumes from a fresh revision.
      if (timeout > BOOKMARK_BEFORE_DEADLINE_S)
        timers.push(
          setTimeout(() => write(resources.bookmark(route.info)), (timeout - BOOKMARK_BEFORE_DEADLINE_S) * 1000),
        );
    }
    if (timeout > 0) timers.push(setTimeout(end, timeout * 1000));
    req.on('close', end);
    res.on('close', end);
  }

  async function resourceRoute(
    req: IncomingMessage,
    res: ServerResponse,
    route: Route,
    q: Query,
    format: ResponseFormat,
    warnings: string[],
  ): Promise<void> {
    const { info, name, subresource } = route;
    const reply = (code: number, body: unknown, warnings: string[] = []) =>
      send(res, code, body, undefined, warnings, format);
    const ns = route.namespace ?? '';
    // pods/portforward without a WebSocket upgrade (SPDY clients upgrade too, but reach the upgrade handler).
    if (name && isPortForward(info, subresource)) {
      portForwardPreflight(registry, resources, info, ns, name, req.method ?? '', q);
      throw webSocketRequired();
    }
    if (info.review) {
      const { body } = req.method === 'POST' ? await decodeWrite(req, info) : { body: undefined };
      deps.metrics.record('create', `${info.group}/${info.plural}`);
      return reply(201, answerReview(info, req.method ?? '', name, body));
    }
    if (name && subresource === 'eviction' && !info.custom && info.group === '' && info.kind === 'Pod') {
      if (req.method !== 'POST')
        throw new StatusError(
          405,
          'the server does not allow this method on the requested resource',
          'MethodNotAllowed',
        );
      const { body } = await decodeWrite(req, info);
      deps.metrics.record('create', '/pods/eviction');
      const status = evict(resources, registry, {
        namespace: ns,
        name,
        body,
        dryRun: q.getAll('dryRun'),
        now: new Date(),
      });
      return reply(201, status);
    }
    const served = (subresource === 'status' && info.statusSubresource) || (subresource === 'scale' && info.scale);
    // kube's crdHandler answers any other subresource of a custom resource as its object not found.
    if (subresource && !served)
      throw info.custom && name ? notFound(info.group, info.plural, name) : resourceNotFound();
    const dryRun = q.getAll('dryRun').includes('All');
    const fieldManager = q.get('fieldManager') ?? (req.headers['user-agent'] ?? 'unknown').split('/')[0];
    const sub = subresource as 'status' | 'scale' | undefined;
    const fieldValidation = (q.get('fieldValidation') ?? undefined) as FieldValidation | undefined;
    const resName = `${info.group}/${info.plural}${sub ? `/${sub}` : ''}`;
    const count = (verb: string) => deps.metrics.record(verb, resName);
    // A write is counted with its field manager and outcome: changed the store (its revision moved), no-op, or failed.
    const revision = () => resources.bookmark(info).object.metadata.resourceVersion;
    const write = <T>(verb: string, manager: string, fn: () => T): T => {
      const before = revision();
      try {
        const out = fn();
        deps.metrics.record(verb, resName, {
          fieldManager: manager,
          outcome: revision() !== before ? 'changed' : 'noop',
          dryRun,
        });
        return out;
      } catch (e) {
        deps.metrics.record(verb, resName, { fieldManager: manager, outcome: 'failed', dryRun });
        throw e;
      }
    };
    // A write through the admission webhooks (../admission); probing steps are not counted.
    const admitted = <T>(verb: string, manager: string, objName: string, fn: (o: AttemptOptions) => T) =>
      webhooks.write(
        { info, namespace: ns, name: objName, subresource: sub, dryRun, warnings, options: requestOptions(q) },
        (o) => (o.probe ? fn(o) : write(verb, manager, () => fn(o))),
      );
    if (sub === 'scale') {
      if (!name) throw resourceNotFound();
      const write = req.method === 'GET' ? undefined : await decodeWrite(req, info);
      const out = scale.serve(req.method ?? '', info, ns, name, write, {
        fieldManager,
        applyManager: q.get('fieldManager') ?? '',
        force: flag(q, 'force'),
        dryRun,
        fieldValidation,
        warnings,
      });
      const body = out.verb === 'get' && wantsTable(req.headers.accept) ? scaleTable(info, out.scale) : out.scale;
      return (count(out.verb), send(res, 200, body, undefined, warnings));
    }
    switch (req.method) {
      case 'GET': {
        // kubectl get asks for a Table (watches too, but a plain event stream is what it falls back to); metadata
        // clients ask for PartialObjectMetadata.
        const table = wantsTable(req.headers.accept) && !sub;
        const partial = sub ? undefined : requestedPartialMetadata(req.headers.accept, protobufServed(info));
        const replyPartial = (body: unknown) => send(res, 200, body, undefined, [], partial?.format);
        if (name) {
          count('get');
          const obj = resources.get(info, ns, name);
          if (partial) return replyPartial(asPartialObjectMetadata(partial, obj));
          return reply(200, table ? toTable(info, [obj], { resourceVersion: obj.metadata.resourceVersion }) : obj);
        }
        if (route.watch || flag(q, 'watch')) return (count('watch'), startWatch(req, res, route, q, format));
        count('list');
        const list = resources.list(info, route.namespace, {
          labelSelector: q.get('labelSelector') ?? undefined,
          fieldSelector: q.get('fieldSelector') ?? undefined,
          limit: q.has('limit') ? Number(q.get('limit')) : undefined,
          continue: q.get('continue') ?? undefined,
        });
        if (partial) return replyPartial(asPartialObjectMetadataList(partial, info.listKind, list));
        return reply(200, table ? toTable(info, list.items, list.metadata) : list);
      }
      case 'POST': {
        if (name) throw new StatusError(405, 'POST is not allowed on a named resource', 'MethodNotAllowed');
        const { body } = await decodeWrite(req, info);
        const created = await admitted('create', fieldManager, (body as any)?.metadata?.name ?? '', (o) =>
          resources.create(info, ns, body, { fieldManager, fieldValidation, ...o }),
        );
        return reply(201, created, warnings);
      }
      case 'PUT': {
        if (!name) throw new StatusError(405, 'PUT requires a name', 'MethodNotAllowed');
        const { body } = await decodeWrite(req, info);
        const existed = resources.exists(info, ns, name);
        const updated = await admitted('update', fieldManager, name, (o) =>
          resources.update(info, ns, name, body, { fieldManager, subresource: sub, fieldValidation, ...o }),
        );
        return reply(existed ? 200 : 201, updated, warnings);
      }
      case 'PATCH': {
        if (!name) throw new StatusError(405, 'PATCH requires a name', 'MethodNotAllowed');
        const { body, patch } = await decodeWrite(req, info);
        if (patch === 'apply') {
          const manager = q.get('fieldManager') ?? '';
          // kube's patch handler answers 201 when the apply created the object (dry run included).
          const created = !sub && !resources.exists(info, ns, name);
          const force = flag(q, 'force');
          const applied = await admitted('apply', manager, name, (o) =>
            resources.apply(info, ns, name, body, {
              fieldManager: manager,
              force,
              subresource: sub,
              fieldValidation,
              ...o,
            }),
          );
          return reply(created ? 201 : 200, applied, warnings);
        }
        const patched = await admitted('patch', fieldManager, name, (o) =>
          resources.patch(info, ns, name, patch!, body, { fieldManager, subresource: sub, fieldValidation, ...o }),
        );
        return reply(200, patched, warnings);
      }
      case 'DELETE': {
        const raw = await readBody(req);
        const text = raw.toString('utf8');
        const protobufOpts =
          isProtobuf((req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase()) && raw.length > 0;
        const opts = (protobufOpts ? decodeProtobufDeleteOptions(raw) : text.trim() ? parseJson(text) : {}) as Record<
          string,
          any
        >;
        if (opts === null || typeof opts !== 'object' || Array.isArray(opts))
          throw new StatusError(400, 'DeleteOptions in the request body must be a JSON object', 'BadRequest');
        if (
          opts.dryRun !== undefined &&
          !(Array.isArray(opts.dryRun) && opts.dryRun.every((v: unknown) => typeof v === 'string'))
        ) {
          throw new StatusError(400, 'DeleteOptions.dryRun must be a list of strings', 'BadRequest');
        }
        const orphanQuery = q.get('orphanDependents');
        const orphanDependents =
          orphanQuery !== null
            ? orphanQuery === 'true'
            : typeof opts.orphanDependents === 'boolean'
              ? opts.orphanDependents
              : undefined;
        const grace = q.get('gracePeriodSeconds') ?? opts.gracePeriodSeconds;
        if (grace !== undefined && grace !== null && !Number.isInteger(Number(grace)))
          throw new StatusError(400, `invalid gracePeriodSeconds ${JSON.stringify(grace)}`, 'BadRequest');
        const delOpts = {
          gracePeriodSeconds: grace === undefined || grace === null ? undefined : Number(grace),
          propagationPolicy: q.get('propagationPolicy') ?? opts.propagationPolicy,
          orphanDependents,
          preconditions: opts.preconditions,
          dryRun: dryRun || (opts.dryRun ?? []).includes('All'),
        };
        const admitDelete = (n: string, objNs: string) =>
          webhooks.beforeDelete(
            {
              info,
              namespace: objNs,
              name: n,
              dryRun: delOpts.dryRun,
              warnings,
              options: deleteOptions(opts, delOpts),
            },
            () => resources.get(info, objNs, n),
          );
        if (!name) {
          const list = resources.list(info, route.namespace, {
            labelSelector: q.get('labelSelector') ?? undefined,
            fieldSelector: q.get('fieldSelector') ?? undefined,
          });
          for (const item of list.items) await admitDelete(item.metadata.name, item.metadata.namespace ?? '');
          write('deletecollection', fieldManager, () => {
            for (const item of list.items)
              resources.delete(info, item.metadata.namespace ?? '', item.metadata.name, delOpts);
          });
          return reply(200, { ...list, items: list.items });
        }
        await admitDelete(name, ns);
        const { object } = write('delete', fieldManager, () => resources.delete(info, ns, name, delOpts));
        return reply(200, object);
      }
      default:
        throw new StatusError(405, `method ${req.method} not allowed`, 'MethodNotAllowed');
    }
  }

  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    let format: ResponseFormat = 'json'; // of the answer, errors included (kube sends Status in the negotiated format)
    const warnings: string[] = []; // sent with the answer, an error's too (kube's warning recorder writes headers early)
    try {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const path = url.pathname;
      if (['/healthz', '/livez', '/readyz'].includes(path))
        return void res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
      if (!authorized(req, deps.token)) throw new StatusError(401, 'Unauthorized', 'Unauthorized');
      decodePathSegments(path);
      // The request counters, as kube-apiserver serves its metrics (to authenticated clients).
      if (path === '/metrics' && req.method === 'GET')
        return void res
          .writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4' })
          .end(deps.metrics.renderPrometheus());
      if (await discoveryRoutes(req, res, path)) return;
      const route = parseResourcePath(registry, path);
      if (!route) throw unmatchedPath(decodePathSegments(path));
      format = responseFormat(req.headers.accept, route.info);
      await resourceRoute(req, res, route, url.searchParams, format, warnings);
    } catch (e) {
      if (e instanceof PathNotFound) return res.headersSent ? void res.end() : sendPathNotFound(res);
      if (!(e instanceof StatusError)) deps.onError(e);
      const err =
        e instanceof StatusError
          ? e
          : new StatusError(500, `Internal error: ${(e as Error)?.message ?? String(e)}`, 'InternalError');
      if (err instanceof NotAcceptable) format = 'protobuf';
      if (res.headersSent) return void res.end();
      send(res, err.code, err.toStatus(), undefined, warnings, format);
    }
  };
}
