// PartialObjectMetadata responses (client-go's metadata client, controller-runtime's metadata-only caches): the same
// requests against the embedded server and kube-apiserver, through raw HTTPS with client-go's Accept headers.
import type { KubeObject } from '@capi/apimachinery';
import { startTestServer, type TestServer } from './support/server';
import { rawRequest, rawWatch, type Ev } from './support/test-client';

// As client-go's metadata client sends them (k8s.io/client-go/metadata/metadata.go), protobuf first.
const OBJECT =
  'application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';
const LIST =
  'application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
const JSON_ONLY = (as: string, v = 'v1') => `application/json;as=${as};g=meta.k8s.io;v=${v}`;

let ts: TestServer;
const ns = 'partial-metadata';
const secrets = `/api/v1/namespaces/${ns}/secrets`;
const get = async (path: string, accept: string) => {
  const r = await rawRequest(ts.conn, 'GET', path, undefined, undefined, { Accept: accept });
  return { code: r.code, body: JSON.parse(r.text) };
};

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
});
afterAll(async () => {
  await ts?.stop();
});

describe('PartialObjectMetadata', () => {
  it('a GET answers with the object metadata only, as meta.k8s.io/v1 PartialObjectMetadata', async () => {
    const { code, body } = await get(`${secrets}/s1`, OBJECT);
    expect(code).toBe(200);
    expect(Object.keys(body).sort()).toEqual(['apiVersion', 'kind', 'metadata']);
    expect(body).toMatchObject({
      apiVersion: 'meta.k8s.io/v1',
      kind: 'PartialObjectMetadata',
      metadata: { name: 's1', namespace: ns, labels: { app: 'pm' }, annotations: { note: 's1' } },
    });
    expect(body.metadata.uid).toBeTruthy();
    expect(body.metadata.resourceVersion).toBeTruthy();
    expect(body.metadata.managedFields?.[0]?.manager).toBeTruthy();
  });

  it('v1beta1 is served too', async () => {
    const { code, body } = await get(`${secrets}/s1`, JSON_ONLY('PartialObjectMetadata', 'v1beta1'));
    expect(code).toBe(200);
    expect(body).toMatchObject({ apiVersion: 'meta.k8s.io/v1beta1', kind: 'PartialObjectMetadata' });
  });

  it('a list answers with a PartialObjectMetadataList: items with their own kind, the list resourceVersion, paging', async () => {
    const { code, body } = await get(`${secrets}?labelSelector=app%3Dpm&limit=1`, LIST);
    expect(code).toBe(200);
    expect(body).toMatchObject({ apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadataList' });
    expect(body.metadata.resourceVersion).toBeTruthy();
    expect(body.metadata.continue).toBeTruthy();
    expect(body.items).toHaveLength(1);
    expect(Object.keys(body.items[0]).sort()).toEqual(['apiVersion', 'kind', 'metadata']);
    expect(body.items[0]).toMatchObject({
      apiVersion: 'meta.k8s.io/v1',
      kind: 'PartialObjectMetadata',
      metadata: { name: 's1' },
    });
    const next = await get(`${secrets}?labelSelector=app%3Dpm&limit=1&continue=${body.metadata.continue}`, LIST);
    expect(next.body.items.map((i: KubeObject) => i.metadata.name)).toEqual(['s2']);
  });

  it('asking for one form where the other applies is 406 NotAcceptable', async () => {
    const list = await get(secrets, JSON_ONLY('PartialObjectMetadata'));
    expect(list.code).toBe(406);
    expect(list.body).toMatchObject({ kind: 'Status', reason: 'NotAcceptable', code: 406 });
    const object = await get(`${secrets}/s1`, JSON_ONLY('PartialObjectMetadataList'));
    expect(object.code).toBe(406);
    expect(object.body).toMatchObject({ kind: 'Status', reason: 'NotAcceptable', code: 406 });
  });

  it('a watch streams each object as PartialObjectMetadata', async () => {
    const listed = await get(secrets, LIST);
    const events: Ev[] = [];
    const watch = await rawWatch(
      ts.conn,
      `${secrets}?watch=true&resourceVersion=${listed.body.metadata.resourceVersion}`,
      (e) => events.push(e),
      { Accept: OBJECT },
    );
    try {
      await ts.clients[0].create({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 's3', namespace: ns },
        data: { token: Buffer.from('secret-s3').toString('base64') },
      });
      const deadline = Date.now() + 10_000;
      while (!events.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(events).toHaveLength(1);
      expect(events[0].type).toBe('ADDED');
      expect(Object.keys(events[0].object).sort()).toEqual(['apiVersion', 'kind', 'metadata']);
      expect(events[0].object).toMatchObject({
        apiVersion: 'meta.k8s.io/v1',
        kind: 'PartialObjectMetadata',
        metadata: { name: 's3', namespace: ns },
      });
    } finally {
      watch.stop();
    }
  });

  it('a plain JSON range first is answered with whole objects', async () => {
    const { body } = await get(`${secrets}/s1`, `application/json,${JSON_ONLY('PartialObjectMetadata')}`);
    expect(body).toMatchObject({ apiVersion: 'v1', kind: 'Secret', data: { token: expect.any(String) } });
  });
});
