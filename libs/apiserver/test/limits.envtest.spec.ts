// kube-apiserver's limits: request body size (413), stored object size (etcd's 1.5 MiB: its error as a 500),
// ConfigMap/Secret data size (422), nesting depth (400: kube allows 10000 levels, the embedded server 512);
// a rejected write stores nothing.
import YAML from 'yaml';
import { rawRequest, type Conn } from './support/test-client';
import { itEmbedded, startTestServer, type TestServer } from './support/server';

let ts: TestServer;
let conn: Conn;
beforeAll(async () => {
  ts = await startTestServer();
  conn = ts.conn;
});
afterAll(async () => {
  await ts?.stop();
});

const MiB = 1024 * 1024;
const cms = '/api/v1/namespaces/default/configmaps';
const gadgets = '/apis/example.com/v1/gadgets';
const status = (text: string) => JSON.parse(text);
/** `{"a":{"a":...1...}}`, `depth` objects deep. */
const nested = (depth: number): unknown => JSON.parse('{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1));
const gadget = (name: string, deep?: unknown): Record<string, unknown> => ({
  apiVersion: 'example.com/v1',
  kind: 'Gadget',
  metadata: { name },
  ...(deep ? { deep } : {}),
});
const revision = async () =>
  status((await rawRequest(conn, 'GET', `${cms}?limit=1`)).text).metadata.resourceVersion as string;

describe('request body size', () => {
  it('refuses a body over 3 MiB with 413 RequestEntityTooLarge, as kube words it', async () => {
    const r = await rawRequest(conn, 'POST', cms, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'huge' },
      data: { k: 'x'.repeat(3 * MiB) },
    });
    expect(r.code).toBe(413);
    expect(status(r.text)).toMatchObject({
      kind: 'Status',
      reason: 'RequestEntityTooLarge',
      code: 413,
      message: 'Request entity too large: limit is 3145728',
    });
  });
});

describe('stored object size', () => {
  // kube passes etcd's error on as it is: a 500 without a reason.
  it("refuses an object over 1.5 MiB with etcd's error and stores nothing", async () => {
    const before = await revision();
    const r = await rawRequest(conn, 'POST', gadgets, { ...gadget('heavy'), blob: 'x'.repeat(1.5 * MiB) });
    expect(r.code).toBe(500);
    expect(status(r.text)).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'etcdserver: request is too large',
      code: 500,
    });
    expect((await rawRequest(conn, 'GET', `${gadgets}/heavy`)).code).toBe(404);
    expect(await revision()).toBe(before);
  });

  it('accepts an object just under the limit, and refuses a patch that grows it past', async () => {
    const created = await rawRequest(conn, 'POST', gadgets, { ...gadget('almost'), blob: 'x'.repeat(1.4 * MiB) });
    expect(created.code).toBe(201);
    const patched = await rawRequest(
      conn,
      'PATCH',
      `${gadgets}/almost`,
      { blob2: 'y'.repeat(0.2 * MiB) },
      'application/merge-patch+json',
    );
    expect(patched.code).toBe(500);
    expect(status((await rawRequest(conn, 'GET', `${gadgets}/almost`)).text).blob2).toBeUndefined();
  });

  it('dryRun writes are not refused (kube: they never reach etcd)', async () => {
    const r = await rawRequest(conn, 'POST', `${gadgets}?dryRun=All`, {
      ...gadget('dry-heavy'),
      blob: 'x'.repeat(1.6 * MiB),
    });
    expect(r.code).toBe(201);
  });
});

describe('ConfigMap and Secret data size (kube: 1 MiB, core.MaxSecretSize)', () => {
  it('refuses a ConfigMap with more than 1 MiB of data and binaryData together, on the whole object', async () => {
    const ok = await rawRequest(conn, 'POST', cms, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'full' },
      data: { a: 'x'.repeat(MiB - 3) },
      binaryData: { b: Buffer.from('abc').toString('base64') },
    });
    expect(ok.code).toBe(201);
    const r = await rawRequest(conn, 'POST', cms, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'over' },
      data: { a: 'x'.repeat(MiB - 3) },
      binaryData: { b: Buffer.from('abcd').toString('base64') },
    });
    expect(status(r.text)).toMatchObject({
      code: 422,
      reason: 'Invalid',
      message: 'ConfigMap "over" is invalid: []: Too long: may not be more than 1048576 bytes',
    });
  });

  it('refuses a Secret whose decoded data plus stringData exceed 1 MiB, on data', async () => {
    const secrets = '/api/v1/namespaces/default/secrets';
    const r = await rawRequest(conn, 'POST', secrets, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'over' },
      data: { a: Buffer.alloc(MiB / 2).toString('base64') },
      stringData: { b: 'x'.repeat(MiB / 2 + 1) },
    });
    expect(status(r.text)).toMatchObject({
      code: 422,
      reason: 'Invalid',
      message: 'Secret "over" is invalid: data: Too long: may not be more than 1048576 bytes',
    });
    const same = await rawRequest(conn, 'POST', secrets, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'replaced' },
      data: { a: Buffer.alloc(MiB / 2).toString('base64') },
      stringData: { a: 'x'.repeat(MiB / 2 + 1) },
    });
    expect(same.code).toBe(201);
  });
});

describe('nesting depth', () => {
  const tooDeep = { code: 400, reason: 'BadRequest' };

  beforeAll(async () => {
    expect((await rawRequest(conn, 'POST', gadgets, gadget('deep-ok', nested(500)))).code).toBe(201);
  });

  // The embedded server's limit: its recursive schema and merge walks would overflow the V8 stack near 1700 levels
  // (kube's Go decoder allows 10000; docs/architecture.md).
  itEmbedded('accepts an object 511 levels deep and refuses one 513 deep', async () => {
    expect((await rawRequest(conn, 'POST', gadgets, gadget('deep-511', nested(510)))).code).toBe(201);
    const r = await rawRequest(conn, 'POST', gadgets, gadget('deep-no', nested(512)));
    expect(status(r.text)).toMatchObject({
      ...tooDeep,
      message: 'error decoding request body: exceeded max depth of 512',
    });
  });

  // Once a 500 "Maximum call stack size exceeded" (structuredClone in Resources.create, the merge patch walk).
  const deepText = (depth: number) => '{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1);
  const head = (name: string) => `{"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"${name}"}`;
  it.each([
    ['a JSON create', 'POST', gadgets, `${head('d1')},"deep":${deepText(10_000)}}`, 'application/json'],
    [
      'a deep array',
      'POST',
      gadgets,
      `${head('d2')},"deep":${'['.repeat(10_000)}${']'.repeat(10_000)}}`,
      'application/json',
    ],
    ['a merge patch', 'PATCH', `${gadgets}/deep-ok`, `{"deep":${deepText(10_000)}}`, 'application/merge-patch+json'],
    [
      'an apply in JSON',
      'PATCH',
      `${gadgets}/deep-ok?fieldManager=t`,
      `${head('deep-ok')},"deep":${deepText(10_000)}}`,
      'application/apply-patch+yaml',
    ],
    [
      'DeleteOptions',
      'DELETE',
      `${gadgets}/deep-ok`,
      `{"kind":"DeleteOptions","x":${deepText(10_000)}}`,
      'application/json',
    ],
  ])('refuses %s nested 10000 levels deep with 400', async (_what, method, path, body, type) => {
    const before = await revision();
    const r = await rawRequest(conn, method, path, body, type, { 'Content-Length': String(Buffer.byteLength(body)) });
    expect(status(r.text)).toMatchObject(tooDeep);
    expect(r.code).toBe(400);
    expect(await revision()).toBe(before);
  });

  itEmbedded('refuses an apply in block YAML nested 600 levels deep with 400', async () => {
    const before = await revision();
    const r = await rawRequest(
      conn,
      'PATCH',
      `${gadgets}/deep-ok?fieldManager=t`,
      YAML.stringify(gadget('deep-ok', nested(600))),
      'application/apply-patch+yaml',
    );
    expect(status(r.text)).toMatchObject(tooDeep);
    expect(await revision()).toBe(before);
  });

  itEmbedded('refuses a JSON patch that builds a value nested past the limit from two shallower halves', async () => {
    const path = '/deep' + '/a'.repeat(300);
    const r = await rawRequest(
      conn,
      'PATCH',
      `${gadgets}/deep-ok`,
      JSON.stringify([{ op: 'add', path: `${path}/b`, value: nested(300) }]),
      'application/json-patch+json',
    );
    expect(status(r.text)).toMatchObject({ ...tooDeep, message: 'error decoding object: exceeded max depth of 512' });
  });

  it('stays up and answers', async () => {
    expect((await rawRequest(conn, 'GET', `${gadgets}/deep-ok`)).code).toBe(200);
  });
});
