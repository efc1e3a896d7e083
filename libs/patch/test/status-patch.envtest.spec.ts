// patchStatus against a real API server (envtest, either target): what is guarded by a resourceVersion, and how a conflict is resolved
// (upstream util/patch patchStatusConditions). The "lagging" client serves a stale copy as a late informer cache would.
import type { Condition } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import { KubeClient, type Client, type ObjectRef } from '@capi/controller-runtime';
import {
  kubeConfigFor,
  startEnvtest,
  testMachineCrd,
  TEST_INFRA_API_VERSION,
  TEST_MACHINE_KIND,
  type Envtest,
} from '@capi/envtest';
import { patchStatus } from '@capi/patch';

jest.setTimeout(30_000);

type Obj = KubeObject & { status?: { conditions?: Condition[]; phase?: string } };
const c = (type: string, status: Condition['status']): Condition => ({
  type,
  status,
  reason: `${type}${status}`,
  lastTransitionTime: '2026-01-01T00:00:00Z',
});

describe('patchStatus (envtest)', () => {
  let env: Envtest;
  let client: KubeClient;
  let refused = 0;
  beforeAll(async () => {
    env = await startEnvtest({ installProjectCrds: false, crds: [testMachineCrd()] });
    // Counts the status patches the server refuses, as the client sees them.
    client = new KubeClient(kubeConfigFor(env), {
      metrics: {
        observe: (r) => void (r.verb === 'patch' && r.subresource === 'status' && r.code >= 400 && refused++),
      },
    });
  });
  afterAll(async () => {
    client?.close();
    await env?.stop();
  });

  const refOf = (name: string): ObjectRef => ({
    apiVersion: TEST_INFRA_API_VERSION,
    kind: TEST_MACHINE_KIND,
    namespace: 'default',
    name,
  });
  const failed = () => refused;

  /** An object with conditions A and B, read (the stale copy), then changed by others: a label, and condition B. */
  async function staleObject(name: string): Promise<{ stale: Obj; ref: ObjectRef }> {
    const ref = refOf(name);
    await client.create<Obj>({
      apiVersion: TEST_INFRA_API_VERSION,
      kind: TEST_MACHINE_KIND,
      metadata: { name, namespace: 'default' },
      spec: {},
    });
    const stale = await client.patch<Obj>(
      ref,
      'merge',
      { status: { phase: 'Pending', conditions: [c('A', 'True'), c('B', 'True')] } },
      { subresource: 'status' },
    );
    await client.patch(ref, 'merge', { metadata: { labels: { other: 'writer' } } });
    await client.patch(
      ref,
      'merge',
      { status: { conditions: [c('A', 'True'), c('B', 'False')] } },
      { subresource: 'status' },
    );
    return { stale, ref };
  }

  /** Serves `stale` for the first `times` gets, then the server's copy. */
  const lagging = (stale: Obj, times: number): Client => {
    let left = times;
    return new Proxy(client, {
      get: (target, prop, receiver) =>
        prop === 'get'
          ? async (r: ObjectRef) => (left-- > 0 ? structuredClone(stale) : target.get(r))
          : Reflect.get(target, prop, receiver),
    }) as Client;
  };

  it('writes a change without conditions unguarded: a stale copy does not make it fail', async () => {
    const { stale, ref } = await staleObject('no-conditions');
    const before = failed();
    await patchStatus(lagging(stale, 99), ref, stale.status, { ...stale.status, phase: 'Running' });
    expect(failed()).toBe(before);
    expect((await client.get<Obj>(ref)).status?.phase).toBe('Running');
  });

  it('retries a conflicting conditions change on the latest copy, keeping what others wrote meanwhile', async () => {
    const { stale, ref } = await staleObject('conflict');
    const before = failed();
    const tries: number[] = [];
    const written = await patchStatus<Obj>(
      lagging(stale, 1),
      ref,
      stale.status,
      { ...stale.status, phase: 'Running', conditions: [c('A', 'False'), c('B', 'True')] },
      {
        backoff: async (attempt) => void tries.push(attempt),
      },
    );
    // One refused write (the stale resourceVersion), then the change re-applied on the latest copy: A is ours, B theirs.
    expect(failed() - before).toBe(1);
    expect(tries).toEqual([1]);
    expect(written?.status?.conditions?.map((x) => `${x.type}=${x.status}`)).toEqual(['A=False', 'B=False']);
    expect(written?.status?.phase).toBe('Running');
  });

  it('gives up after 5 conflicts, still writing the rest of the status', async () => {
    const { stale, ref } = await staleObject('exhausted');
    const before = failed();
    await expect(
      patchStatus(
        lagging(stale, 99),
        ref,
        stale.status,
        { ...stale.status, phase: 'Running', conditions: [c('A', 'False'), c('B', 'True')] },
        { backoff: async () => undefined },
      ),
    ).rejects.toMatchObject({ code: 409 });
    expect(failed() - before).toBe(5);
    const latest = await client.get<Obj>(ref);
    expect(latest.status?.phase).toBe('Running');
    expect(latest.status?.conditions?.map((x) => `${x.type}=${x.status}`)).toEqual(['A=True', 'B=False']);
  });
});
