// markAsPending / markAsDone against envtest (either target, the project's CRDs), counting the client's writes.
import { PENDING_HOOKS_ANNOTATION } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import type { CountingClientMetrics, KubeClient } from '@capi/controller-runtime';
import { countingClientFor, startEnvtest, type Envtest } from '@capi/envtest';
import { markAsDone, markAsPending } from '@capi/inplace';

const machine = (name: string, annotations?: Record<string, string>): KubeObject => ({
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'Machine',
  metadata: { name, namespace: 'default', ...(annotations ? { annotations } : {}) },
  spec: {
    clusterName: 'c1',
    bootstrap: { dataSecretName: 'bootstrap-data' },
    infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'DevMachine', name },
  },
});

describe('hook tracking with API writes', () => {
  let env: Envtest;
  let client: KubeClient;
  let requests: CountingClientMetrics;

  beforeAll(async () => {
    env = await startEnvtest();
    ({ client, requests } = countingClientFor(env));
  });
  afterAll(async () => {
    client?.close();
    await env?.stop();
  });

  async function writesDuring(fn: () => Promise<unknown>): Promise<number> {
    requests.reset();
    await fn();
    return requests.writes();
  }

  it('markAsPending merges into the sorted set, writes back resourceVersion, and skips the API when unchanged', async () => {
    const m = await client.create(machine('m-pending', { keep: 'me', [PENDING_HOOKS_ANNOTATION]: 'ZHook' }));
    const rv = m.metadata.resourceVersion;
    expect(
      await writesDuring(async () =>
        expect(await markAsPending(client, m, 'UpdateMachine', 'UpdateMachine')).toBe(true),
      ),
    ).toBe(1);
    expect(m.metadata.annotations).toEqual({ keep: 'me', [PENDING_HOOKS_ANNOTATION]: 'UpdateMachine,ZHook' });
    expect(m.metadata.resourceVersion).not.toBe(rv);
    const stored = await client.get({
      apiVersion: m.apiVersion,
      kind: m.kind,
      namespace: 'default',
      name: 'm-pending',
    });
    expect(stored.metadata.annotations).toEqual(m.metadata.annotations);
    expect(stored.metadata.resourceVersion).toBe(m.metadata.resourceVersion);
    expect(await writesDuring(async () => expect(await markAsPending(client, m, 'UpdateMachine')).toBe(false))).toBe(0);
  });

  it('markAsDone removes the hook, deletes the annotation when empty, and is a no-op when not pending', async () => {
    const m = await client.create(machine('m-done', { [PENDING_HOOKS_ANNOTATION]: 'UpdateMachine' }));
    expect(await writesDuring(async () => expect(await markAsDone(client, m, 'UpdateMachine')).toBe(true))).toBe(1);
    expect(m.metadata.annotations?.[PENDING_HOOKS_ANNOTATION]).toBeUndefined();
    const stored = await client.get({ apiVersion: m.apiVersion, kind: m.kind, namespace: 'default', name: 'm-done' });
    expect(stored.metadata.annotations?.[PENDING_HOOKS_ANNOTATION]).toBeUndefined();
    expect(await writesDuring(async () => expect(await markAsDone(client, m, 'UpdateMachine')).toBe(false))).toBe(0);
  });

  it('a merge patch only touches pending-hooks: concurrent annotation writes by others survive', async () => {
    const m = await client.create(machine('m-concurrent'));
    await client.patch(
      { apiVersion: m.apiVersion, kind: m.kind, namespace: 'default', name: 'm-concurrent' },
      'merge',
      { metadata: { annotations: { other: 'x' } } },
    );
    await markAsPending(client, m, 'UpdateMachine'); // m is stale (no "other"), still no conflict and no loss
    expect(m.metadata.annotations).toEqual({ other: 'x', [PENDING_HOOKS_ANNOTATION]: 'UpdateMachine' });
  });

  it('a missing object is an ApiError NotFound', async () => {
    await expect(markAsPending(client, machine('m-missing'), 'UpdateMachine')).rejects.toMatchObject({ code: 404 });
  });
});
