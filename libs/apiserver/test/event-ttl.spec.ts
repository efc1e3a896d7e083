// Events expire through the API as kube-apiserver's --event-ttl expires them: an Event not written for the TTL (default
// 1 h) is deleted by the sweep (ApiServer.expireEvents, which the manager's embedded default runs periodically); a fresh
// Event, or one updated since, stays. Embedded server only: its clock is the test's, so no waiting.
import type { KubeObject } from '@capi/apimachinery';
import { embedded, startTestServer, type TestServer } from './support/server';
import type { Ev, TestClient } from './support/test-client';

const MINUTE = 60_000;
let t = Date.parse('2026-01-01T00:00:00Z');
let ts: TestServer;
let c: TestClient;

beforeAll(async () => {
  // No eventTtlMs: kube-apiserver's default, 1 h.
  ts = await startTestServer({ now: () => t });
  c = ts.clients[0];
});
afterAll(async () => {
  await ts?.stop();
});

const event = (name: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name, namespace: 'default' },
  involvedObject: { kind: 'ConfigMap', name: 'x', namespace: 'default' },
  reason: 'Tested',
  message: 'first',
  type: 'Normal',
});
const ref = (name: string, apiVersion = 'v1') => ({ apiVersion, kind: 'Event', name, namespace: 'default' });
const status = (p: Promise<unknown>) =>
  p.then(
    () => 200,
    (e: { code?: number }) => e.code,
  );

it('deletes an Event an hour after its last write, keeps a fresh or updated one; watchers see DELETED', async () => {
  await c.create(event('old'));
  await c.create(event('updated'));
  t += 50 * MINUTE;
  await c.patch(ref('updated'), 'merge', { message: 'second', count: 2 });
  await c.create(event('fresh'));
  const list = await c.list('v1', 'Event', 'default');
  let onDeleted: (e: Ev) => void = () => {};
  const deleted = new Promise<Ev>((resolve) => (onDeleted = resolve));
  const watch = await c.watch('v1', 'Event', 'default', { resourceVersion: list.metadata.resourceVersion }, (e) => {
    if (e.type === 'DELETED') onDeleted(e);
  });

  t += 9 * MINUTE;
  expect(embedded(ts).expireEvents()).toBe(0);
  t += MINUTE;
  expect(embedded(ts).expireEvents()).toBe(1);

  expect(await status(c.get(ref('old')))).toBe(404);
  expect(await status(c.get(ref('old', 'events.k8s.io/v1')))).toBe(404);
  expect((await c.get(ref('updated'))).message).toBe('second');
  expect(await status(c.get(ref('fresh')))).toBe(200);
  const ev = await deleted;
  watch.stop();
  expect(ev.object.metadata.name).toBe('old');
  expect(Number(ev.object.metadata.resourceVersion)).toBeGreaterThan(Number(list.metadata.resourceVersion));

  t += 50 * MINUTE;
  expect(embedded(ts).expireEvents()).toBe(2);
  expect((await c.list('v1', 'Event', 'default')).items).toEqual([]);
});
