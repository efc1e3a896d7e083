import * as https from 'node:https';
import * as k8s from '@kubernetes/client-node';
import type { KubeObject, ObjectList } from '@capi/apimachinery';
import { Conn, Ev, HttpError, ListQuery, PathResolver, qs, Ref, TestClient, WatchQuery } from './test-client';

/** client-node errors → HttpError carrying the server's Status. */
async function wrap<T>(p: () => Promise<T>): Promise<T> {
  try {
    return await p();
  } catch (e: any) {
    if (typeof e?.code === 'number' && e.code >= 300) {
      const body = typeof e.body === 'string' ? JSON.parse(e.body) : e.body;
      throw new HttpError(e.code, body);
    }
    throw e;
  }
}

/**
 * The suite's client over @kubernetes/client-node: KubernetesObjectApi for CRUD/merge patch/apply, Watch for watches,
 * and KubeConfig-authenticated raw requests for what KubernetesObjectApi cannot express (status subresource, JSON patch).
 */
export class ClientNodeClient implements TestClient {
  readonly name = '@kubernetes/client-node';
  private readonly kc = new k8s.KubeConfig();
  private readonly api: k8s.KubernetesObjectApi;

  private readonly paths: PathResolver;

  constructor(kubeconfig: string, conn: Conn) {
    this.paths = new PathResolver(conn);
    this.kc.loadFromString(kubeconfig);
    this.api = k8s.KubernetesObjectApi.makeApiClient(this.kc);
  }

  private async path(
    ref: { apiVersion: string; kind: string; namespace?: string; name?: string },
    sub?: string,
  ): Promise<string> {
    if (!ref.name) return this.paths.base(ref.apiVersion, ref.kind, ref.namespace);
    return this.paths.item(
      { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, namespace: ref.namespace },
      sub,
    );
  }

  private async raw(method: string, path: string, body: unknown, contentType: string): Promise<any> {
    const opts: https.RequestOptions = { method, headers: { 'Content-Type': contentType, Accept: 'application/json' } };
    await this.kc.applyToHTTPSOptions(opts);
    const url = new URL(path, this.kc.getCurrentCluster()!.server);
    const { code, text } = await new Promise<{ code: number; text: string }>((resolve, reject) => {
      const req = https.request(url, opts, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ code: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      });
      req.on('error', reject);
      req.end(JSON.stringify(body));
    });
    const parsed = text ? JSON.parse(text) : undefined;
    if (code >= 300) throw new HttpError(code, parsed);
    return parsed;
  }

  create(obj: KubeObject, q: { dryRun?: boolean; fieldManager?: string } = {}) {
    return wrap(() =>
      this.api.create(obj as k8s.KubernetesObject, undefined, q.dryRun ? 'All' : undefined, q.fieldManager),
    ) as Promise<KubeObject>;
  }
  get(ref: Ref) {
    return wrap(() =>
      this.api.read({
        apiVersion: ref.apiVersion,
        kind: ref.kind,
        metadata: { name: ref.name, namespace: ref.namespace },
      }),
    ) as Promise<KubeObject>;
  }
  async list(apiVersion: string, kind: string, namespace?: string, q: ListQuery = {}): Promise<ObjectList> {
    const list = await wrap(() =>
      this.api.list(
        apiVersion,
        kind,
        namespace,
        undefined,
        undefined,
        undefined,
        q.fieldSelector,
        q.labelSelector,
        q.limit,
        q.continue,
      ),
    );
    // client-node's ListMeta model calls `continue` `_continue`.
    const meta = list.metadata as any;
    return { ...list, metadata: { ...meta, continue: meta?._continue ?? meta?.continue } } as unknown as ObjectList;
  }
  async update(obj: KubeObject, q: { subresource?: 'status'; fieldManager?: string } = {}) {
    if (q.subresource)
      return this.raw(
        'PUT',
        (await this.path({ ...obj, ...obj.metadata }, 'status')) + qs({ fieldManager: q.fieldManager }),
        obj,
        'application/json',
      );
    return wrap(() =>
      this.api.replace(obj as k8s.KubernetesObject, undefined, undefined, q.fieldManager),
    ) as Promise<KubeObject>;
  }
  async patch(
    ref: Ref,
    type: 'merge' | 'json',
    body: unknown,
    q: { subresource?: 'status'; fieldManager?: string } = {},
  ) {
    if (type === 'merge' && !q.subresource) {
      const spec = {
        ...(body as object),
        apiVersion: ref.apiVersion,
        kind: ref.kind,
        metadata: { ...((body as any).metadata ?? {}), name: ref.name, namespace: ref.namespace },
      };
      return wrap(() =>
        this.api.patch(
          spec as k8s.KubernetesObject,
          undefined,
          undefined,
          q.fieldManager,
          undefined,
          k8s.PatchStrategy.MergePatch,
        ),
      ) as Promise<KubeObject>;
    }
    const ct = type === 'merge' ? 'application/merge-patch+json' : 'application/json-patch+json';
    return this.raw('PATCH', (await this.path(ref, q.subresource)) + qs({ fieldManager: q.fieldManager }), body, ct);
  }
  async apply(
    obj: KubeObject,
    fieldManager: string,
    q: { force?: boolean; subresource?: 'status'; dryRun?: boolean } = {},
  ) {
    if (q.subresource)
      return this.raw(
        'PATCH',
        (await this.path({ ...obj, ...obj.metadata }, 'status')) + qs({ fieldManager, force: q.force }),
        obj,
        'application/apply-patch+yaml',
      );
    return wrap(() =>
      this.api.patch(
        obj as k8s.KubernetesObject,
        undefined,
        q.dryRun ? 'All' : undefined,
        fieldManager,
        q.force,
        k8s.PatchStrategy.ServerSideApply,
      ),
    ) as Promise<KubeObject>;
  }
  async delete(ref: Ref, q: { propagationPolicy?: string } = {}) {
    return wrap(() =>
      this.api.delete(
        { apiVersion: ref.apiVersion, kind: ref.kind, metadata: { name: ref.name, namespace: ref.namespace } },
        undefined,
        undefined,
        undefined,
        undefined,
        q.propagationPolicy,
      ),
    );
  }
  async watch(
    apiVersion: string,
    kind: string,
    namespace: string | undefined,
    q: WatchQuery,
    onEvent: (e: Ev) => void,
  ) {
    const path = await this.path({ apiVersion, kind, namespace });
    const ctl = await new k8s.Watch(this.kc).watch(
      path,
      { ...q },
      (type, object) => onEvent({ type, object }),
      () => {},
    );
    return { stop: () => ctl.abort() };
  }
}
