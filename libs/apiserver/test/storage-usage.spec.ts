// The API server's parsed-object cache is bounded by the parsedCacheChars option (the in-memory workload clusters run
// with a small one), and storageUsage() reports it and the database size.
import { embedded, startTestServer, type TestServer } from './support/server';

let ts: TestServer;
beforeAll(async () => {
  ts = await startTestServer({ parsedCacheChars: 4000 });
});
afterAll(async () => {
  await ts?.stop();
});

it('keeps at most parsedCacheChars of JSON parsed, every object still served', async () => {
  const c = ts.clients[0];
  await c.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'usage' } });
  const names = Array.from({ length: 30 }, (_, i) => `cm-${i}`);
  for (const name of names)
    await c.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: 'usage' },
      data: { pad: 'x'.repeat(300) },
    });
  const usage = embedded(ts).storageUsage();
  expect(usage.parsedChars).toBeLessThanOrEqual(4000);
  expect(usage.parsedObjects).toBeLessThan(names.length);
  expect(usage.databaseBytes).toBeGreaterThan(30 * 300);
  const listed = await c.list('v1', 'ConfigMap', 'usage');
  expect(listed.items.map((o) => o.metadata.name).sort()).toEqual([...names].sort());
});
