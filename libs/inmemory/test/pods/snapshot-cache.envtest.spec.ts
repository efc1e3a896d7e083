// The simulator's informer view of a workload cluster (src/pods/snapshot-cache.ts) against a real API server: a
// pass's own writes (create, status, graceful and immediate delete) are in
// the snapshot once `observe` resolves, and a write that never shows makes it resolve false after its timeout.
import type { KubeObject } from '@capi/apimachinery';
import { KubeClient, refOf } from '@capi/controller-runtime';
import { startEnvtest, type Envtest } from '@capi/envtest';
import { KubeConfig } from '@kubernetes/client-node';
import { SnapshotCache } from '../../src/pods/snapshot-cache';

jest.setTimeout(60_000);

let env: Envtest;
let client: KubeClient;
let cache: SnapshotCache;
let changes = 0;

beforeAll(async () => {
  env = await startEnvtest({ installProjectCrds: false });
  const kc = new KubeConfig();
  kc.loadFromString(env.kubeconfig);
  client = new KubeClient(kc);
  cache = new SnapshotCache(client);
  expect(await cache.start(() => changes++, 30_000)).toBe(true);
});
afterAll(async () => {
  await cache?.stop();
  client?.close();
  await env?.stop();
});

const pod = (name: string, nodeName?: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default' },
  spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'c', image: 'pause' }] },
});
const podNames = () => cache.snapshot().pods.map((p) => p.metadata.name);

it('shows a created and status-patched Pod once observe resolves, and counts the change', async () => {
  const before = changes;
  const created = await client.create(pod('a'));
  const patched = await client.patch<KubeObject>(
    refOf(created),
    'merge',
    { status: { phase: 'Running' } },
    {
      subresource: 'status',
    },
  );
  expect(
    await cache.observe([{ ref: refOf(created), resourceVersion: patched.metadata.resourceVersion! }], 10_000),
  ).toBe(true);
  const seen = cache.snapshot().pods.find((p) => p.metadata.name === 'a');
  expect((seen?.status as { phase?: string }).phase).toBe('Running');
  expect(changes).toBeGreaterThan(before);
});

it('shows a graceful delete as terminating and an immediate one as gone', async () => {
  // Bound to a Node, a Pod deleted with the default grace period only starts terminating (its kubelet finishes it).
  const bound = await client.create(pod('bound', 'node-1'));
  const unbound = await client.create(pod('unbound'));
  await client.delete(refOf(bound), { preconditions: { uid: bound.metadata.uid! } });
  await client.delete(refOf(unbound), { gracePeriodSeconds: 0 });
  expect(
    await cache.observe(
      [
        { ref: refOf(bound), uid: bound.metadata.uid, deleted: true, terminating: true },
        { ref: refOf(unbound), uid: unbound.metadata.uid, deleted: true },
      ],
      10_000,
    ),
  ).toBe(true);
  expect(podNames()).not.toContain('unbound');
  expect(cache.snapshot().pods.find((p) => p.metadata.name === 'bound')?.metadata.deletionTimestamp).toBeDefined();
});

it('resolves false after its timeout for a write the cache never shows', async () => {
  const ref = { apiVersion: 'v1', kind: 'Pod', namespace: 'default', name: 'never' };
  expect(await cache.observe([{ ref, resourceVersion: '999999999999' }], 300)).toBe(false);
});
