// Watch fan-out: an event is encoded once and the same bytes go to every watcher of that version and format.
import https from 'node:https';
import { widget } from './support/fixtures';
import { itEmbedded, startTestServer, type TestServer } from './support/server';
import type { Conn } from './support/test-client';

let ts: TestServer;
beforeAll(async () => {
  ts = await startTestServer();
  await ts.clients[0].create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fan' } });
});
afterAll(async () => {
  await ts?.stop();
});
afterEach(() => jest.restoreAllMocks());

/** A watch that keeps each event line exactly as received. */
function watchLines(conn: Conn, path: string): Promise<{ lines: string[]; stop(): void }> {
  const lines: string[] = [];
  return new Promise((resolve, reject) => {
    const req = https.request(
      new URL(path, conn.url),
      { ca: Buffer.from(conn.caData!, 'base64'), headers: { Authorization: `Bearer ${conn.token}` } },
      (res) => {
        let buf = '';
        res.on('data', (c: Buffer) => {
          buf += c.toString('utf8');
          for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
            lines.push(buf.slice(0, i));
            buf = buf.slice(i + 1);
          }
        });
        res.on('error', () => {});
        resolve({ lines, stop: () => req.destroy() });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(cond()).toBe(true);
}

/** Three watches of the fan namespace's widgets from `w`'s resourceVersion, then two spec changes of `w`. */
async function threeWatchersOfTwoWrites(name: string) {
  const c = ts.clients[0];
  const created = await c.create(widget(name, 'fan'));
  const path = `/apis/example.com/v1/namespaces/fan/widgets?watch=true&resourceVersion=${created.metadata.resourceVersion}`;
  const watches = await Promise.all([0, 1, 2].map(() => watchLines(ts.conn, path)));
  await new Promise((r) => setTimeout(r, 50));
  const ref = { apiVersion: 'example.com/v1', kind: 'Widget', namespace: 'fan', name };
  return {
    watches,
    write: async () => {
      await c.patch(ref, 'merge', { spec: { size: 2 } });
      await c.patch(ref, 'merge', { spec: { size: 3 } });
      await until(() => watches.every((w) => w.lines.length === 2));
      watches.forEach((w) => w.stop());
    },
  };
}

it('three watchers of a kind receive identical bytes per event', async () => {
  const { watches, write } = await threeWatchersOfTwoWrites('w1');
  await write();
  expect(watches[1].lines).toEqual(watches[0].lines);
  expect(watches[2].lines).toEqual(watches[0].lines);
  expect(watches[0].lines.map((l) => JSON.parse(l).object.spec.size)).toEqual([2, 3]);
});

// Counts JSON.stringify calls inside the embedded server's process.
itEmbedded('the object is JSON-encoded once per write (to store it), not per watcher or response', async () => {
  const { watches, write } = await threeWatchersOfTwoWrites('w1-encodings');
  const stringify = jest.spyOn(JSON, 'stringify');
  await write();
  const isWidget = (v: any) => v?.kind === 'Widget' && v?.metadata?.name === 'w1-encodings';
  const encodings = stringify.mock.calls.filter(([v]: any[]) => isWidget(v) || isWidget(v?.object)).length;
  stringify.mockRestore();
  expect(watches[0].lines.map((l) => JSON.parse(l).object.spec.size)).toEqual([2, 3]);
  expect(encodings).toBe(2);
});

it('a watcher whose label selector sees the object leave gets DELETED with its last matching state while others get MODIFIED', async () => {
  const c = ts.clients[0];
  const created = await c.create(widget('w2', 'fan', { size: 1 }, { labels: { keep: 'yes' } }));
  const base = `/apis/example.com/v1/namespaces/fan/widgets?watch=true&resourceVersion=${created.metadata.resourceVersion}`;
  const all = await watchLines(ts.conn, base);
  const selected = await watchLines(ts.conn, `${base}&labelSelector=keep%3Dyes`);
  await new Promise((r) => setTimeout(r, 50));
  await c.patch({ apiVersion: 'example.com/v1', kind: 'Widget', namespace: 'fan', name: 'w2' }, 'merge', {
    metadata: { labels: { keep: null } },
  });
  await until(() => all.lines.length === 1 && selected.lines.length === 1);
  all.stop();
  selected.stop();
  const [a, s] = [JSON.parse(all.lines[0]), JSON.parse(selected.lines[0])];
  expect([a.type, s.type]).toEqual(['MODIFIED', 'DELETED']);
  // kube's cacheWatcher: DELETED carries the object as that watcher last matched it, at the event's resourceVersion.
  expect(a.object.metadata.labels).toBeUndefined();
  expect(s.object).toEqual({
    ...created,
    metadata: { ...created.metadata, resourceVersion: a.object.metadata.resourceVersion },
  });
});
