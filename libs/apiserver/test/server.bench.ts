// Benchmark (not a test): `npx jest -c libs/apiserver/jest.config.js --testMatch '**/server.bench.ts'`.
// Prints write/read throughput over HTTPS for memory and SQLite-file storage, and the server's request counts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiServer, type ApiServerOptions } from '../src';
import { rawRequest } from './support/test-client';

jest.setTimeout(300000);

async function run(label: string, storage: ApiServerOptions['storage'], n: number) {
  const server = new ApiServer({ storage });
  const conn = await server.start();
  const cms = '/api/v1/namespaces/default/configmaps';
  let t = process.hrtime.bigint();
  for (let i = 0; i < n; i++)
    await rawRequest(conn, 'POST', cms, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `cm-${i}`, labels: { i: String(i % 10) } },
      data: { v: 'x'.repeat(200) },
    });
  const createMs = Number(process.hrtime.bigint() - t) / 1e6;
  t = process.hrtime.bigint();
  for (let i = 0; i < n; i++)
    await rawRequest(conn, 'PATCH', `${cms}/cm-${i}`, { data: { v: 'y' } }, 'application/merge-patch+json');
  const patchMs = Number(process.hrtime.bigint() - t) / 1e6;
  t = process.hrtime.bigint();
  for (let i = 0; i < 20; i++) await rawRequest(conn, 'GET', `${cms}?labelSelector=i%3D3`);
  const listMs = Number(process.hrtime.bigint() - t) / 1e6;
  const counts = server.countRequests();
  await server.stop();
  // eslint-disable-next-line no-console
  console.log(
    `${label}: create ${(createMs / n).toFixed(2)} ms/op, merge patch ${(patchMs / n).toFixed(2)} ms/op, ` +
      `selector list over ${n} objects ${(listMs / 20).toFixed(1)} ms/op; server counted ${counts.total} requests (${JSON.stringify(counts.byVerb)})`,
  );
}

it('server throughput', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'apiserver-bench-'));
  try {
    await run('memory', { type: 'memory' }, 500);
    await run('sqlite', { type: 'sqlite', path: join(dir, 'state.db') }, 500);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
