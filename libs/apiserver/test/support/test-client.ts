// One client interface for the semantic suite, implemented over raw HTTPS and over @kubernetes/client-node.
import * as https from 'node:https';
import * as http from 'node:http';
import type { KubeObject, ObjectList, Status } from '@capi/apimachinery';

export interface Ref {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
}
export interface ListQuery {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
}
export interface WatchQuery {
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
  labelSelector?: string;
  fieldSelector?: string;
}
export type Ev = { type: string; object: any };

/** Thrown by every TestClient for non-2xx answers. */
export class HttpError extends Error {
  constructor(
    readonly code: number,
    readonly status: Status,
  ) {
    super(`${code}: ${status?.message}`);
  }
}

export interface TestClient {
  readonly name: string;
  create(obj: KubeObject, q?: { dryRun?: boolean; fieldManager?: string }): Promise<KubeObject>;
  get(ref: Ref): Promise<KubeObject>;
  list(apiVersion: string, kind: string, namespace?: string, q?: ListQuery): Promise<ObjectList>;
  update(obj: KubeObject, q?: { subresource?: 'status'; fieldManager?: string }): Promise<KubeObject>;
  patch(
    ref: Ref,
    type: 'merge' | 'json',
    body: unknown,
    q?: { subresource?: 'status'; fieldManager?: string },
  ): Promise<KubeObject>;
  apply(
    obj: KubeObject,
    fieldManager: string,
    q?: { force?: boolean; subresource?: 'status'; dryRun?: boolean },
  ): Promise<KubeObject>;
  /** The server's answer: the object (kept by finalizers) or a Status. */
  delete(ref: Ref, q?: { propagationPolicy?: 'Background' | 'Foreground' | 'Orphan' }): Promise<any>;
  watch(
    apiVersion: string,
    kind: string,
    namespace: string | undefined,
    q: WatchQuery,
    onEvent: (e: Ev) => void,
  ): Promise<{ stop(): void }>;
}

export interface Conn {
  url: string;
  token: string;
  caData?: string;
}

/** Minimal HTTPS requester used by the raw client and for the raw parts of the client-node one. */
export function rawRequest(
  conn: Conn,
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
  extraHeaders: Record<string, string> = {},
): Promise<{ code: number; text: string }> {
  const u = new URL(path, conn.url);
  const data = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  const lib = u.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = lib.request(
      u,
      {
        method,
        ca: conn.caData ? Buffer.from(conn.caData, 'base64') : undefined,
        headers: {
          Authorization: `Bearer ${conn.token}`,
          Accept: 'application/json',
          ...(data !== undefined ? { 'Content-Type': contentType } : {}),
          ...extraHeaders,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ code: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    if (data !== undefined) req.write(data);
    req.end();
  });
}

/** Resolves kind → plural/namespaced through the server's discovery. */
export class PathResolver {
  private cache = new Map<string, { plural: string; namespaced: boolean }>();
  constructor(private readonly conn: Conn) {}

  async base(apiVersion: string, kind: string, namespace?: string): Promise<string> {
    const key = `${apiVersion}/${kind}`;
    if (!this.cache.has(key)) {
      const gvPath = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
      const res = await rawRequest(this.conn, 'GET', gvPath);
      if (res.code !== 200) throw new HttpError(res.code, JSON.parse(res.text));
      for (const r of JSON.parse(res.text).resources)
        if (!r.name.includes('/'))
          this.cache.set(`${apiVersion}/${r.kind}`, { plural: r.name, namespaced: r.namespaced });
    }
    const r = this.cache.get(key);
    if (!r) throw new HttpError(404, { message: `no resource for ${key}` });
    const gv = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    return `${gv}${r.namespaced && namespace ? `/namespaces/${namespace}` : ''}/${r.plural}`;
  }

  async item(ref: Ref, subresource?: string): Promise<string> {
    return `${await this.base(ref.apiVersion, ref.kind, ref.namespace)}/${encodeURIComponent(ref.name)}${subresource ? `/${subresource}` : ''}`;
  }
}

export const refOf = (o: KubeObject): Ref => ({
  apiVersion: o.apiVersion,
  kind: o.kind,
  name: o.metadata.name!,
  namespace: o.metadata.namespace,
});

export function qs(q: Record<string, string | number | boolean | undefined>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined && v !== false) p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : '';
}

/** Streams a watch over raw HTTPS, one JSON event per line. */
export function rawWatch(conn: Conn, path: string, onEvent: (e: Ev) => void): Promise<{ stop(): void }> {
  const u = new URL(path, conn.url);
  const lib = u.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = lib.request(
      u,
      {
        method: 'GET',
        ca: conn.caData ? Buffer.from(conn.caData, 'base64') : undefined,
        headers: { Authorization: `Bearer ${conn.token}` },
      },
      (res) => {
        let buf = '';
        res.on('data', (c: Buffer) => {
          buf += c.toString('utf8');
          let i: number;
          while ((i = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, i).trim();
            buf = buf.slice(i + 1);
            if (line) onEvent(JSON.parse(line));
          }
        });
        res.on('error', () => {});
        resolve({ stop: () => req.destroy() });
      },
    );
    req.on('error', (e) => reject(e));
    req.end();
  });
}
