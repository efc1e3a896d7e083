// Test-only API server speaking enough of the Kubernetes REST protocol for the client, informer, leader election and
// NestJS tests: discovery, CRUD, status subresource, merge/json patch, list paging, watch with resume, bookmarks and
// "too old resource version" after compaction. Apply is treated as a merge patch (no managedFields): the real
// server-side apply lives in @capi/apiserver.
import * as http from 'http';
import { AddressInfo } from 'net';
import { randomUUID } from 'crypto';
import { applyPatch, Operation } from 'fast-json-patch';
import { KubeConfig } from '@kubernetes/client-node';
import { mergePatch, KubeObject } from '@capi/apimachinery';

export interface FakeResource {
  apiVersion: string;
  kind: string;
  plural: string;
  namespaced: boolean;
}

interface StoredEvent {
  rv: number;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  plural: string;
  object: KubeObject;
}

interface OpenWatch {
  plural: string;
  namespace?: string;
  res: http.ServerResponse;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  userAgent?: string;
  accept?: string;
  /** The JSON body, when there was one. */
  body?: unknown;
}

const DEFAULT_RESOURCES: FakeResource[] = [
  { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true },
  { apiVersion: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false },
  { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', plural: 'leases', namespaced: true },
  { apiVersion: 'test.capi.io/v1', kind: 'Widget', plural: 'widgets', namespaced: true },
  { apiVersion: 'test.capi.io/v1', kind: 'Gadget', plural: 'gadgets', namespaced: true },
];

export class FakeApiServer {
  readonly token = 'test-token';
  readonly requests: RecordedRequest[] = [];
  private readonly resources: FakeResource[] = [...DEFAULT_RESOURCES];
  private readonly objects = new Map<string, KubeObject>();
  private readonly history: StoredEvent[] = [];
  private readonly watches = new Set<OpenWatch>();
  private rv = 100;
  private compactedRv = 0;
  private deliverySuspended = false;
  private watchDelayMs = 0;
  private server?: http.Server;
  url = '';

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => this.handle(req, res));
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.dropWatches();
    this.server?.closeAllConnections();
    await new Promise<void>((r) => this.server?.close(() => r()) ?? r());
  }

  kubeConfig(token = this.token): KubeConfig {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'fake', server: this.url, skipTLSVerify: true }],
      users: [{ name: 'u', token }],
      contexts: [{ name: 'fake', cluster: 'fake', user: 'u' }],
      currentContext: 'fake',
    });
    return kc;
  }

  /** Serves a new kind (like installing a CRD). */
  addResource(r: FakeResource): void {
    this.resources.push(r);
  }

  /** Ends every open watch stream (a dropped connection, from the client's view). */
  dropWatches(): void {
    for (const w of this.watches) w.res.end();
    this.watches.clear();
  }

  /** Forgets history: watches from older resource versions get "410 too old". */
  compact(): void {
    this.compactedRv = this.rv;
    this.history.length = 0;
  }

  /** Sends a BOOKMARK with the current resource version to every open watch. */
  bookmark(): void {
    for (const w of this.watches)
      this.write(w.res, {
        type: 'BOOKMARK',
        object: { kind: 'Bookmark', metadata: { resourceVersion: String(this.rv) } },
      });
  }

  /** While suspended, changes are stored and kept in history but not sent to open watches (a client missing events). */
  suspendWatchDelivery(suspended = true): void {
    this.deliverySuspended = suspended;
  }

  /** Sends each change to open watches `ms` after it was stored (in order): informers lag behind writes. */
  delayWatchDelivery(ms: number): void {
    this.watchDelayMs = ms;
  }

  openWatchCount(): number {
    return this.watches.size;
  }

  currentResourceVersion(): string {
    return String(this.rv);
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://x');
    const query = Object.fromEntries(url.searchParams);
    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query,
      userAgent: req.headers['user-agent'],
      accept: req.headers.accept,
    };
    this.requests.push(recorded);
    if (req.headers.authorization !== `Bearer ${this.token}`) return this.status(res, 401, 'Unauthorized', 'bad token');
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        const text = Buffer.concat(chunks).toString('utf8');
        if (text) recorded.body = JSON.parse(text);
        this.route(
          req.method ?? 'GET',
          url.pathname,
          query,
          text ? JSON.parse(text) : undefined,
          req.headers['content-type'] ?? '',
          res,
        );
      } catch (e) {
        this.status(res, 400, 'BadRequest', (e as Error).message);
      }
    });
  }

  private route(
    method: string,
    path: string,
    query: Record<string, string>,
    body: any,
    contentType: string,
    res: http.ServerResponse,
  ): void {
    const m = /^\/(?:api\/(v1)|apis\/([^/]+\/[^/]+))(?:\/(.*))?$/.exec(path);
    if (!m) return this.status(res, 404, 'NotFound', `no route ${path}`);
    const apiVersion = m[1] ?? m[2];
    const rest = (m[3] ?? '').split('/').filter(Boolean).map(decodeURIComponent);
    if (rest.length === 0) return this.discovery(apiVersion, res);
    let namespace: string | undefined;
    if (rest[0] === 'namespaces' && rest.length >= 3) {
      namespace = rest[1];
      rest.splice(0, 2);
    }
    const [plural, name, sub] = rest;
    const r = this.resources.find((x) => x.apiVersion === apiVersion && x.plural === plural);
    if (!r) return this.status(res, 404, 'NotFound', `the server could not find the requested resource`);
    if (!name) {
      if (method === 'GET' && (query.watch === 'true' || query.watch === '1'))
        return this.watch(r, namespace, query, res);
      if (method === 'GET') return this.list(r, namespace, query, res);
      if (method === 'POST') return this.create(r, namespace, body, res);
      return this.status(res, 405, 'MethodNotAllowed', method);
    }
    const key = `${plural}/${namespace ?? ''}/${name}`;
    const current = this.objects.get(key);
    if (method === 'GET') return current ? this.send(res, 200, current) : this.notFound(res, r, name);
    // A POST to any other subresource (e.g. pods/eviction) of an existing object succeeds with a Status, as kube's
    // eviction does.
    if (method === 'POST' && sub && sub !== 'status') {
      if (!current) return this.notFound(res, r, name);
      return this.send(res, 201, { kind: 'Status', apiVersion: 'v1', status: 'Success', code: 201 });
    }
    if (method === 'DELETE') {
      if (!current) return this.notFound(res, r, name);
      const pre = body?.preconditions;
      if (pre?.resourceVersion && pre.resourceVersion !== current.metadata.resourceVersion)
        return this.conflict(res, r, name);
      this.objects.delete(key);
      this.record('DELETED', r, { ...current, metadata: { ...current.metadata, resourceVersion: String(++this.rv) } });
      return this.send(res, 200, { kind: 'Status', apiVersion: 'v1', status: 'Success' });
    }
    let next: KubeObject;
    if (method === 'PUT') {
      if (!current) return this.notFound(res, r, name);
      if (body.metadata?.resourceVersion && body.metadata.resourceVersion !== current.metadata.resourceVersion)
        return this.conflict(res, r, name);
      next = sub === 'status' ? { ...current, status: body.status } : { ...body, status: current.status };
    } else if (method === 'PATCH') {
      if (contentType.startsWith('application/apply-patch') && !query.fieldManager)
        return this.status(res, 400, 'BadRequest', 'fieldManager is required for apply');
      if (!current && !contentType.startsWith('application/apply-patch')) return this.notFound(res, r, name);
      if (!current) return this.create(r, namespace, body, res);
      next =
        contentType === 'application/json-patch+json'
          ? (applyPatch(structuredClone(current), body as Operation[], false, false).newDocument as KubeObject)
          : (mergePatch(structuredClone(current), body) as KubeObject);
    } else return this.status(res, 405, 'MethodNotAllowed', method);
    if (query.dryRun === 'All') return this.send(res, 200, next);
    const specChanged = JSON.stringify(stripMeta(next)) !== JSON.stringify(stripMeta(current!));
    next.metadata = {
      ...next.metadata,
      name: current!.metadata.name,
      namespace: current!.metadata.namespace,
      uid: current!.metadata.uid,
      creationTimestamp: current!.metadata.creationTimestamp,
      generation: (current!.metadata.generation ?? 1) + (specChanged ? 1 : 0),
      resourceVersion: String(++this.rv),
    };
    this.objects.set(key, next);
    this.record('MODIFIED', r, next);
    this.send(res, 200, next);
  }

  private discovery(apiVersion: string, res: http.ServerResponse): void {
    const resources = this.resources
      .filter((r) => r.apiVersion === apiVersion)
      .flatMap((r) => [
        {
          name: r.plural,
          kind: r.kind,
          namespaced: r.namespaced,
          verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
        },
        { name: `${r.plural}/status`, kind: r.kind, namespaced: r.namespaced, verbs: ['get', 'update', 'patch'] },
      ]);
    if (resources.length === 0) return this.status(res, 404, 'NotFound', `no group version ${apiVersion}`);
    this.send(res, 200, { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: apiVersion, resources });
  }

  private list(
    r: FakeResource,
    namespace: string | undefined,
    query: Record<string, string>,
    res: http.ServerResponse,
  ): void {
    const all = [...this.objects.entries()]
      .filter(([k]) => k.startsWith(`${r.plural}/`) && (!namespace || k.startsWith(`${r.plural}/${namespace}/`)))
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([, o]) => o);
    let listRv = String(this.rv);
    let start = 0;
    if (query.continue) {
      const [rv, offset] = query.continue.split(':');
      if (Number(rv) < this.compactedRv) return this.status(res, 410, 'Expired', 'continue token expired');
      listRv = rv;
      start = Number(offset);
    }
    const limit = query.limit ? Number(query.limit) : all.length;
    const items = all.slice(start, start + limit).map((o) => ({ ...o, apiVersion: undefined, kind: undefined }));
    const more = start + limit < all.length;
    this.send(res, 200, {
      kind: `${r.kind}List`,
      apiVersion: r.apiVersion,
      metadata: { resourceVersion: listRv, ...(more ? { continue: `${listRv}:${start + limit}` } : {}) },
      items,
    });
  }

  private create(r: FakeResource, namespace: string | undefined, body: KubeObject, res: http.ServerResponse): void {
    const name =
      body?.metadata?.name ??
      (body?.metadata?.generateName ? body.metadata.generateName + randomUUID().slice(0, 5) : undefined);
    if (!name) return this.status(res, 422, 'Invalid', 'metadata.name: Required value');
    const key = `${r.plural}/${namespace ?? ''}/${name}`;
    if (this.objects.has(key))
      return this.status(res, 409, 'AlreadyExists', `${r.plural} "${name}" already exists`, { name, kind: r.plural });
    const obj: KubeObject = {
      ...body,
      apiVersion: r.apiVersion,
      kind: r.kind,
      metadata: {
        ...body.metadata,
        name,
        namespace,
        uid: randomUUID(),
        generation: 1,
        creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
        resourceVersion: String(++this.rv),
      },
    };
    this.objects.set(key, obj);
    this.record('ADDED', r, obj);
    this.send(res, 201, obj);
  }

  private watch(
    r: FakeResource,
    namespace: string | undefined,
    query: Record<string, string>,
    res: http.ServerResponse,
  ): void {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
    res.flushHeaders();
    const from = query.resourceVersion ? Number(query.resourceVersion) : this.rv;
    if (from < this.compactedRv) {
      this.write(res, {
        type: 'ERROR',
        object: {
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          code: 410,
          reason: 'Expired',
          message: `too old resource version: ${from} (${this.compactedRv})`,
        },
      });
      return void res.end();
    }
    const w: OpenWatch = { plural: r.plural, namespace, res };
    for (const ev of this.history)
      if (ev.rv > from && this.matches(w, ev)) this.write(res, { type: ev.type, object: ev.object });
    this.watches.add(w);
    res.on('close', () => this.watches.delete(w));
  }

  private matches(w: OpenWatch, ev: StoredEvent): boolean {
    return ev.plural === w.plural && (!w.namespace || ev.object.metadata.namespace === w.namespace);
  }

  private record(type: StoredEvent['type'], r: FakeResource, object: KubeObject): void {
    const ev = { rv: Number(object.metadata.resourceVersion), type, plural: r.plural, object: structuredClone(object) };
    this.history.push(ev);
    if (this.deliverySuspended) return;
    const deliver = () => {
      for (const w of this.watches) if (this.matches(w, ev)) this.write(w.res, { type, object: ev.object });
    };
    if (this.watchDelayMs > 0) setTimeout(deliver, this.watchDelayMs);
    else deliver();
  }

  private write(res: http.ServerResponse, ev: unknown): void {
    res.write(JSON.stringify(ev) + '\n');
  }

  private send(res: http.ServerResponse, code: number, body: unknown): void {
    res.writeHead(code, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body));
  }

  private status(
    res: http.ServerResponse,
    code: number,
    reason: string,
    message: string,
    details?: Record<string, unknown>,
  ): void {
    this.send(res, code, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message, details });
  }

  private notFound(res: http.ServerResponse, r: FakeResource, name: string): void {
    this.status(res, 404, 'NotFound', `${r.plural} "${name}" not found`, { name, kind: r.plural });
  }

  private conflict(res: http.ServerResponse, r: FakeResource, name: string): void {
    this.status(
      res,
      409,
      'Conflict',
      `Operation cannot be fulfilled on ${r.plural} "${name}": the object has been modified`,
      { name, kind: r.plural },
    );
  }
}

function stripMeta(o: KubeObject): unknown {
  const { metadata, status, ...rest } = o;
  void metadata;
  void status;
  return rest;
}
