// Protobuf over HTTP: bodies in, negotiated answers out, for every served built-in kind; bad bodies are 400s.
import * as https from 'node:https';
import { decodeObject, encodeObject, PROTOBUF_MEDIA_TYPE } from '../src/protobuf';
import { messageType } from '../src/protobuf/codec';
import { rawRequest, type Conn } from './support/test-client';
import { startTestServer, type TestServer } from './support/server';

let ts: TestServer;
let conn: Conn;
beforeAll(async () => {
  ts = await startTestServer();
  conn = ts.conn;
});
afterAll(async () => {
  await ts?.server.stop();
});

interface Answer { code: number; contentType: string; body: Buffer }

function request(method: string, path: string, body?: Buffer, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(path, conn.url), {
      method, ca: conn.caData ? Buffer.from(conn.caData, 'base64') : undefined,
      headers: { Authorization: `Bearer ${conn.token}`, ...(body ? { 'Content-Type': PROTOBUF_MEDIA_TYPE, 'Content-Length': String(body.length) } : {}), ...headers },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ code: res.statusCode ?? 0, contentType: String(res.headers['content-type']), body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const PB = { Accept: `${PROTOBUF_MEDIA_TYPE},application/json` };
const cms = '/api/v1/namespaces/default/configmaps';
const json = (a: Answer) => JSON.parse(a.body.toString('utf8'));

/** The answer decoded, after checking it is protobuf. */
function protobufAnswer(a: Answer): any {
  expect(a.contentType).toBe(PROTOBUF_MEDIA_TYPE);
  return decodeObject(a.body);
}

const now = '2026-12-03T12:00:00Z';
const kinds: [string, string, Record<string, any>][] = [
  ['/api/v1/namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'pb-ns', labels: { a: 'b' } }, spec: { finalizers: ['kubernetes'] } }],
  [cms, 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'pb-cm' }, data: { k: 'v' }, binaryData: { b: 'AAH/' }, immutable: false }],
  ['/api/v1/namespaces/default/secrets', 'default', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'pb-s' }, type: 'Opaque', data: { pw: 'c2VjcmV0' } }],
  ['/api/v1/namespaces/default/events', 'default', { apiVersion: 'v1', kind: 'Event', metadata: { name: 'pb-ev' }, involvedObject: { kind: 'ConfigMap', name: 'pb-cm', namespace: 'default' },
    reason: 'Tested', message: 'm', type: 'Normal', count: 1, firstTimestamp: now, lastTimestamp: now, source: { component: 'test' } }],
  ['/apis/events.k8s.io/v1/namespaces/default/events', 'default', { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'pb-ev2' }, eventTime: '2026-12-03T12:00:00.250000Z',
    reportingController: 'example.com/test', reportingInstance: 't-1', action: 'Test', reason: 'Tested', regarding: { kind: 'ConfigMap', name: 'pb-cm', namespace: 'default' }, note: 'n', type: 'Normal' }],
  ['/apis/coordination.k8s.io/v1/namespaces/default/leases', 'default', { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'pb-lease' },
    spec: { holderIdentity: 'me', leaseDurationSeconds: 15, renewTime: '2026-12-03T12:00:00.123456Z', leaseTransitions: 0 } }],
  ['/api/v1/nodes', '', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'pb-node' }, spec: { providerID: 'test://n', taints: [{ key: 'k', effect: 'NoSchedule' }] },
    status: { capacity: { cpu: '2', memory: '4Gi' }, conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: now, lastTransitionTime: now }], addresses: [{ type: 'InternalIP', address: '10.0.0.1' }] } }],
];

describe('protobuf requests', () => {
  it.each(kinds.map(([path, ns, obj]) => [`${obj.apiVersion} ${obj.kind}`, path, ns, obj]))('%s: create, get and list as protobuf; the JSON path reads the same object', async (_name, path, _ns, obj) => {
    const created = protobufAnswer(await request('POST', path, encodeObject(obj), PB));
    expect(created).toMatchObject({ ...obj, metadata: { ...obj.metadata, uid: expect.any(String), resourceVersion: expect.any(String) } });
    const item = `${path}/${obj.metadata.name}`;
    const asJson = json(await request('GET', item, undefined, { Accept: 'application/json' }));
    expect(protobufAnswer(await request('GET', item, undefined, PB))).toEqual(asJson);
    expect(created).toEqual(asJson);
    const list = protobufAnswer(await request('GET', path, undefined, PB));
    expect(list.kind).toBe(`${obj.kind}List`);
    expect(list.items.map((i: any) => i.metadata.name)).toContain(obj.metadata.name);
  });

  it('update (PUT) with a protobuf body', async () => {
    const live = json(await request('GET', `${cms}/pb-cm`, undefined, { Accept: 'application/json' }));
    const updated = protobufAnswer(await request('PUT', `${cms}/pb-cm`, encodeObject({ ...live, data: { k: 'v2' } }), PB));
    expect(updated.data).toEqual({ k: 'v2' });
    expect(Number(updated.metadata.resourceVersion)).toBeGreaterThan(Number(live.metadata.resourceVersion));
  });

  it('delete with protobuf DeleteOptions (preconditions and dryRun are honoured)', async () => {
    const DeleteOptions = messageType('k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions');
    const Unknown = messageType('k8s.io.apimachinery.pkg.runtime.Unknown');
    const opts = (o: object) => Buffer.concat([Buffer.from('k8s\0'), Unknown.encode(Unknown.fromObject({
      typeMeta: { apiVersion: 'v1', kind: 'DeleteOptions' }, raw: DeleteOptions.encode(DeleteOptions.fromObject(o)).finish(),
    })).finish()]);
    const conflict = await request('DELETE', `${cms}/pb-cm`, opts({ preconditions: { uid: 'not-the-uid' } }), PB);
    expect(conflict.code).toBe(409);
    expect(protobufAnswer(conflict)).toMatchObject({ kind: 'Status', reason: 'Conflict', message: expect.stringContaining('Precondition failed: UID in precondition: not-the-uid') });
    expect((await request('DELETE', `${cms}/pb-cm`, opts({ dryRun: ['All'] }), PB)).code).toBe(200);
    expect((await request('GET', `${cms}/pb-cm`)).code).toBe(200);
    expect((await request('DELETE', `${cms}/pb-cm`, opts({ propagationPolicy: 'Background' }), PB)).code).toBe(200);
    expect((await request('GET', `${cms}/pb-cm`)).code).toBe(404);
  });
});

describe('bad protobuf bodies', () => {
  const good = encodeObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bad' } });
  it.each([
    ['garbage', Buffer.from('not protobuf at all'), 'the body does not start with the protobuf magic prefix'],
    ['truncated', good.subarray(0, good.length - 3), 'invalid runtime.Unknown envelope'],
    ['a kind without a schema', Buffer.concat([Buffer.from('k8s\0'), Buffer.from([0x0a, 0x07, 0x0a, 0x02, 0x76, 0x31, 0x12, 0x01, 0x58])]), 'no protobuf schema on this server for v1, Kind=X'],
  ])('%s: 400 BadRequest with a clear message; the server stays up', async (_name, body, message) => {
    const r = await request('POST', cms, body as Buffer, { Accept: 'application/json' });
    expect(r.code).toBe(400);
    expect(json(r)).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400, message: expect.stringContaining(`error decoding protobuf request body: ${message}`) });
    expect((await rawRequest(conn, 'GET', cms)).code).toBe(200);
  });

  it('the Status of a bad body comes as protobuf when protobuf is accepted', async () => {
    const r = await request('POST', cms, Buffer.from('junk'), PB);
    expect(r.code).toBe(400);
    expect(protobufAnswer(r)).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'BadRequest', code: 400 });
  });

  it('a protobuf body of another kind than the URL is 400 (as for JSON)', async () => {
    const r = await request('POST', cms, encodeObject({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } }), { Accept: 'application/json' });
    expect(r.code).toBe(400);
    expect(json(r).message).toContain('do not match the resource v1, Kind=ConfigMap');
  });
});

describe('custom resources stay JSON-only, as in kube', () => {
  const widgets = '/apis/example.com/v1/namespaces/default/widgets';
  it('a protobuf body is 415 UnsupportedMediaType', async () => {
    const r = await request('POST', widgets, Buffer.from('k8s\0'), { Accept: 'application/json' });
    expect(r.code).toBe(415);
    expect(json(r)).toMatchObject({ reason: 'UnsupportedMediaType', message: expect.stringContaining('application/vnd.kubernetes.protobuf is not supported for widgets.example.com') });
  });

  it('Accept protobuf,json gets JSON; protobuf alone is 406 NotAcceptable', async () => {
    const fallback = await request('GET', widgets, undefined, PB);
    expect(fallback.code).toBe(200);
    expect(fallback.contentType).toBe('application/json');
    expect(json(fallback).kind).toBe('WidgetList');
    const only = await request('GET', widgets, undefined, { Accept: PROTOBUF_MEDIA_TYPE });
    expect(only.code).toBe(406);
    expect(json(only)).toMatchObject({ reason: 'NotAcceptable', code: 406 });
  });
});

describe('responses', () => {
  it('errors are protobuf Status when protobuf is negotiated', async () => {
    const r = await request('GET', `${cms}/nope`, undefined, PB);
    expect(r.code).toBe(404);
    expect(protobufAnswer(r)).toEqual({ apiVersion: 'v1', kind: 'Status', status: 'Failure', message: 'configmaps "nope" not found', reason: 'NotFound', code: 404, details: { name: 'nope', kind: 'configmaps' } });
  });

  it('JSON stays the default; watches stay JSON streams (protobuf-only watches are 406)', async () => {
    expect((await request('GET', cms)).contentType).toBe('application/json');
    expect((await request('GET', `${cms}?watch=true`, undefined, { Accept: PROTOBUF_MEDIA_TYPE })).code).toBe(406);
    const streamed = await new Promise<string>((resolve, reject) => {
      const req = https.request(new URL(`${cms}?watch=true&timeoutSeconds=1`, conn.url), { ca: Buffer.from(conn.caData!, 'base64'), headers: { Authorization: `Bearer ${conn.token}`, ...PB } }, (res) => {
        resolve(String(res.headers['content-type']));
        res.destroy();
      });
      req.on('error', reject);
      req.end();
    });
    expect(streamed).toBe('application/json');
  });
});
