// Test-only in-memory Client: enough of the contract (get/tryGet/list/create/patch merge incl. status) for
// reconciler unit tests. Not exported from the lib's index.
import { mergePatch, type KubeObject } from '@capi/apimachinery';
import { ApiError, type Client, type ObjectRef } from '@capi/controller-runtime';

const keyOf = (r: { apiVersion: string; kind: string; namespace?: string; name?: string }) =>
  `${r.apiVersion}|${r.kind}|${r.namespace ?? ''}|${r.name}`;

export class FakeKubeClient implements Pick<Client, 'get' | 'tryGet' | 'list' | 'create' | 'patch'> {
  readonly objects = new Map<string, KubeObject>();
  readonly patches: { ref: ObjectRef; patch: unknown; subresource?: string }[] = [];
  private rv = 1;

  async create<T extends KubeObject>(obj: T): Promise<T> {
    const stored = structuredClone(obj);
    stored.metadata.resourceVersion = String(++this.rv);
    stored.metadata.generation = 1;
    this.objects.set(keyOf({ ...obj, ...obj.metadata }), stored);
    return structuredClone(stored);
  }
  async get<T extends KubeObject>(ref: ObjectRef): Promise<T> {
    const o = this.objects.get(keyOf(ref));
    if (!o)
      throw new ApiError(404, {
        status: 'Failure',
        reason: 'NotFound',
        code: 404,
        message: `${ref.kind} "${ref.name}" not found`,
      });
    return structuredClone(o) as T;
  }
  async tryGet<T extends KubeObject>(ref: ObjectRef): Promise<T | undefined> {
    return this.objects.has(keyOf(ref)) ? this.get<T>(ref) : undefined;
  }
  async list<T extends KubeObject>(apiVersion: string, kind: string) {
    const items = [...this.objects.values()]
      .filter((o) => o.apiVersion === apiVersion && o.kind === kind)
      .map((o) => structuredClone(o) as T);
    return { apiVersion, kind: `${kind}List`, metadata: {}, items };
  }
  async patch<T extends KubeObject>(
    ref: ObjectRef,
    type: string,
    patch: unknown,
    opts: { subresource?: 'status' } = {},
  ): Promise<T> {
    if (type !== 'merge') throw new Error(`FakeKubeClient supports merge patches only, got ${type}`);
    const current = await this.get(ref);
    this.patches.push({ ref, patch, subresource: opts.subresource });
    const p = patch as Record<string, unknown>;
    // Like the API server: the status subresource only changes status, the main resource never does.
    const { status, ...rest } = p;
    const relevant = opts.subresource === 'status' ? { status } : rest;
    const next = mergePatch(current, relevant) as KubeObject;
    if (
      opts.subresource !== 'status' &&
      JSON.stringify((next as { spec?: unknown }).spec) !== JSON.stringify((current as { spec?: unknown }).spec)
    ) {
      next.metadata.generation = (current.metadata.generation ?? 1) + 1;
    }
    next.metadata.resourceVersion = String(++this.rv);
    this.objects.set(keyOf(ref), next);
    return structuredClone(next) as T;
  }
}
