// PartialObjectMetadata responses (client-go's metadata client, controller-runtime's metadata-only caches): the same
// requests against the embedded server and kube-apiserver, with client-go's Accept headers (protobuf first) and with
// JSON ones (our client's).
import type { KubeObject } from '@capi/apimachinery';
import { decodeObject, decodeWatchFrames, PROTOBUF_MEDIA_TYPE } from '../src/protobuf';
import { binaryRequest, openBinaryWatch, type Answer } from './support/binary-client';
import { startTestServer, type TestServer } from './support/server';
import { widgetCrd } from './support/fixtures';

const form = (as: string, v = 'v1') => `;as=${as};g=meta.k8s.io;v=${v}`;
// As k8s.io/client-go/metadata/metadata.go sends them.
const CLIENT_GO = (as: string) => `${PROTOBUF_MEDIA_TYPE}${form(as)},application/json${form(as)},application/json`;
const JSON_FIRST = (as: string, v = 'v1') => `application/json${form(as, v)},application/json`;

let ts: TestServer;
const ns = 'partial-metadata';
const secrets = `/api/v1/namespaces/${ns}/secrets`;
const widgets = `/apis/${widgetCrd.spec.group}/v1/namespaces/${ns}/${widgetCrd.spec.names.plural}`;
const get = (path: string, accept: string) => binaryRequest(ts.conn, 'GET', path, undefined, { Accept: accept });
/** The answer's object, from JSON or protobuf by its Content-Type. */
const body = (a: Answer): any =>
  a.contentType === PROTOBUF_MEDIA_TYPE ? decodeObject(a.body) : JSON.parse(a.body.toString('utf8'));

beforeAll(async () => {
  ts = await startTestServer();
  const c = ts.clients[0];
  await c.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  for (const name of ['s1', 's2'])
    await c.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace: ns, labels: { app: 'pm' }, annotations: { note: name } },
      data: { token: Buffer.from(`secret-${name}`).toString('base64') },
    });
  await c.create({
    apiVersion: `${widgetCrd.spec.group}/v1`,
    kind: 'Widget',
    metadata: { name: 'w1', namespace: ns, labels: { app: 'pm' } },
    spec: { size: 3 },
  });
});
afterAll(async () => {
  await ts?.stop();
});

describe.each([
  ['protobuf (client-go)', CLIENT_GO, PROTOBUF_MEDIA_TYPE],
  ['JSON', JSON_FIRST, 'application/json'],
])('PartialObjectMetadata as %s', (_, accept, contentType) => {
  it('a GET answers with the object metadata only, as meta.k8s.io/v1 PartialObjectMetadata', async () => {
    const a = await get(`${secrets}/s1`, accept('PartialObjectMetadata'));
    expect(a.code).toBe(200);
    expect(a.contentType).toBe(contentType);
    const got = body(a);
    expect(Object.keys(got).sort()).toEqual(['apiVersion', 'kind', 'metadata']);
    expect(got).toMatchObject({
      apiVersion: 'meta.k8s.io/v1',
      kind: 'PartialObjectMetadata',
      metadata: { name: 's1', namespace: ns, labels: { app: 'pm' }, annotations: { note: 's1' } },
    });
    expect(got.metadata.uid).toBeTruthy();
    expect(got.metadata.resourceVersion).toBeTruthy();
    expect(got.metadata.managedFields?.[0]?.manager).toBeTruthy();
  });

  it('custom resources too', async () => {
    const a = await get(`${widgets}/w1`, accept('PartialObjectMetadata'));
    expect(a.code).toBe(200);
    expect(a.contentType).toBe(contentType);
    expect(body(a)).toEqual({
      apiVersion: 'meta.k8s.io/v1',
      kind: 'PartialObjectMetadata',
      metadata: expect.objectContaining({ name: 'w1', labels: { app: 'pm' } }),
    });
    const list = body(await get(widgets, accept('PartialObjectMetadataList')));
    expect(list.kind).toBe('PartialObjectMetadataList');
    expect(list.items.map((i: KubeObject) => i.metadata.name)).toEqual(['w1']);
  });

  it('a list answers with a PartialObjectMetadataList: items with their own kind, the list resourceVersion, paging', async () => {
    const a = await get(`${secrets}?labelSelector=app%3Dpm&limit=1`, accept('PartialObjectMetadataList'));
    expect(a.code).toBe(200);
    expect(a.contentType).toBe(contentType);
    const list = body(a);
    expect(list).toMatchObject({ apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadataList' });
    expect(list.metadata.resourceVersion).toBeTruthy();
    expect(list.metadata.continue).toBeTruthy();
    expect(list.items).toHaveLength(1);
    // Only metadata: protobuf items carry no apiVersion/kind (the message has only metadata), JSON ones do.
    expect(Object.keys(list.items[0]).filter((k) => k !== 'apiVersion' && k !== 'kind')).toEqual(['metadata']);
    expect(list.items[0]).toMatchObject({ metadata: { name: 's1' } });
    const next = body(
      await get(
        `${secrets}?labelSelector=app%3Dpm&limit=1&continue=${list.metadata.continue}`,
        accept('PartialObjectMetadataList'),
      ),
    );
    expect(next.items.map((i: KubeObject) => i.metadata.name)).toEqual(['s2']);
  });

  it('a watch streams each object as PartialObjectMetadata', async () => {
    const listed = body(await get(secrets, accept('PartialObjectMetadataList')));
    const name = `watched-${contentType.length}`;
    const w = openBinaryWatch(
      ts.conn,
      `${secrets}?watch=true&resourceVersion=${listed.metadata.resourceVersion}`,
      accept('PartialObjectMetadata'),
    );
    try {
      await w.opened;
      await ts.clients[0].create({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name, namespace: ns },
        data: { token: Buffer.from('secret').toString('base64') },
      });
      const events = await eventsOf(w, contentType);
      expect(events.map((e) => [e.type, e.object.metadata?.name])).toEqual([['ADDED', name]]);
      expect(Object.keys(events[0].object).sort()).toEqual(['apiVersion', 'kind', 'metadata']);
      expect(events[0].object).toMatchObject({ apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata' });
    } finally {
      w.stop();
    }
  });
});

describe('PartialObjectMetadata negotiation', () => {
  it('v1beta1 is served as JSON', async () => {
    const a = await get(`${secrets}/s1`, JSON_FIRST('PartialObjectMetadata', 'v1beta1'));
    expect(a.code).toBe(200);
    expect(body(a)).toMatchObject({ apiVersion: 'meta.k8s.io/v1beta1', kind: 'PartialObjectMetadata' });
  });

  it('asking for one form where the other applies is 406 NotAcceptable', async () => {
    const list = await get(secrets, `application/json${form('PartialObjectMetadata')}`);
    expect(list.code).toBe(406);
    expect(body(list)).toMatchObject({ kind: 'Status', reason: 'NotAcceptable', code: 406 });
    const object = await get(`${secrets}/s1`, `application/json${form('PartialObjectMetadataList')}`);
    expect(object.code).toBe(406);
    expect(body(object)).toMatchObject({ kind: 'Status', reason: 'NotAcceptable', code: 406 });
  });

  it('a plain JSON range first is answered with whole objects', async () => {
    const a = await get(`${secrets}/s1`, `application/json,application/json${form('PartialObjectMetadata')}`);
    expect(body(a)).toMatchObject({ apiVersion: 'v1', kind: 'Secret', data: { token: expect.any(String) } });
  });
});

/** The watch's events once one has arrived (10 s at most), decoded by the stream's Content-Type. */
async function eventsOf(w: ReturnType<typeof openBinaryWatch>, contentType: string) {
  const decode = (): { type: string; object: any }[] =>
    contentType === PROTOBUF_MEDIA_TYPE
      ? decodeWatchFrames(w.data())
      : w
          .data()
          .toString('utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l));
  const deadline = Date.now() + 10_000;
  while (!decode().length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  expect(w.contentType()).toBe(
    contentType === PROTOBUF_MEDIA_TYPE ? `${PROTOBUF_MEDIA_TYPE};stream=watch` : contentType,
  );
  return decode();
}
