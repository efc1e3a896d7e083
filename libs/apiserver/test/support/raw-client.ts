import type { KubeObject, ObjectList } from '@capi/apimachinery';
import {
  Conn,
  Ev,
  HttpError,
  ListQuery,
  PathResolver,
  qs,
  rawRequest,
  rawWatch,
  Ref,
  refOf,
  TestClient,
  WatchQuery,
} from './test-client';

async function call(conn: Conn, method: string, path: string, body?: unknown, contentType?: string): Promise<any> {
  const res = await rawRequest(conn, method, path, body, contentType);
  const parsed = res.text ? JSON.parse(res.text) : undefined;
  if (res.code >= 300) throw new HttpError(res.code, parsed);
  return parsed;
}

/** The suite's client over plain HTTPS requests. */
export class RawClient implements TestClient {
  readonly name = 'raw https';
  private readonly paths: PathResolver;
  constructor(private readonly conn: Conn) {
    this.paths = new PathResolver(conn);
  }

  async create(obj: KubeObject, q: { dryRun?: boolean; fieldManager?: string } = {}) {
    const base = await this.paths.base(obj.apiVersion, obj.kind, obj.metadata.namespace);
    return call(
      this.conn,
      'POST',
      base + qs({ dryRun: q.dryRun ? 'All' : undefined, fieldManager: q.fieldManager }),
      obj,
    );
  }
  async get(ref: Ref) {
    return call(this.conn, 'GET', await this.paths.item(ref));
  }
  async list(apiVersion: string, kind: string, namespace?: string, q: ListQuery = {}): Promise<ObjectList> {
    return call(this.conn, 'GET', (await this.paths.base(apiVersion, kind, namespace)) + qs({ ...q }));
  }
  async update(obj: KubeObject, q: { subresource?: 'status'; fieldManager?: string } = {}) {
    return call(
      this.conn,
      'PUT',
      (await this.paths.item(refOf(obj), q.subresource)) + qs({ fieldManager: q.fieldManager }),
      obj,
    );
  }
  async patch(
    ref: Ref,
    type: 'merge' | 'json',
    body: unknown,
    q: { subresource?: 'status'; fieldManager?: string } = {},
  ) {
    const ct = type === 'merge' ? 'application/merge-patch+json' : 'application/json-patch+json';
    return call(
      this.conn,
      'PATCH',
      (await this.paths.item(ref, q.subresource)) + qs({ fieldManager: q.fieldManager }),
      body,
      ct,
    );
  }
  async apply(
    obj: KubeObject,
    fieldManager: string,
    q: { force?: boolean; subresource?: 'status'; dryRun?: boolean } = {},
  ) {
    return call(
      this.conn,
      'PATCH',
      (await this.paths.item(refOf(obj), q.subresource)) +
        qs({ fieldManager, force: q.force, dryRun: q.dryRun ? 'All' : undefined }),
      obj,
      'application/apply-patch+yaml',
    );
  }
  async delete(ref: Ref, q: { propagationPolicy?: string } = {}) {
    return call(this.conn, 'DELETE', (await this.paths.item(ref)) + qs({ propagationPolicy: q.propagationPolicy }));
  }
  async watch(
    apiVersion: string,
    kind: string,
    namespace: string | undefined,
    q: WatchQuery,
    onEvent: (e: Ev) => void,
  ) {
    return rawWatch(
      this.conn,
      (await this.paths.base(apiVersion, kind, namespace)) + qs({ watch: true, ...q }),
      onEvent,
    );
  }
}
