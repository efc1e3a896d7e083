// Protobuf over HTTP: bodies in, negotiated answers out, for every served built-in kind; bad bodies are 400s.
import { decodeObject, decodeWatchFrames, encodeObject, PROTOBUF_MEDIA_TYPE } from '../src/protobuf';
import { messageType } from '../src/protobuf/codec';
import { rawRequest, type Conn } from './support/test-client';
import { binaryRequest, openBinaryWatch, type Answer } from './support/binary-client';
import { compactHistory, itEmbedded, startTestServer, type TestServer } from './support/server';
import { waitFor } from './support/fixtures';

let ts: TestServer;
let conn: Conn;
beforeAll(async () => {
  ts = await startTestServer({ historySize: 50 }); // small, so that an old resourceVersion is 410
  conn = ts.conn;
});
afterAll(async () => {
  await ts?.stop();
});

const request = (method: string, path: string, body?: Buffer, headers: Record<string, string> = {}) =>
  binaryRequest(conn, method, path, body, headers);
const openWatch = (path: string, accept: string) => openBinaryWatch(conn, path, accept);

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
  [
    '/api/v1/namespaces',
    '',
    {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'pb-ns', labels: { a: 'b' } },
      spec: { finalizers: ['kubernetes'] },
    },
  ],
  [
    cms,
    'default',
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'pb-cm' },
      data: { k: 'v' },
      binaryData: { b: 'AAH/' },
      immutable: false,
    },
  ],
  [
    '/api/v1/namespaces/default/secrets',
    'default',
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'pb-s' }, type: 'Opaque', data: { pw: 'c2VjcmV0' } },
  ],
  [
    '/api/v1/namespaces/default/events',
    'default',
    {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'pb-ev' },
      involvedObject: { kind: 'ConfigMap', name: 'pb-cm', namespace: 'default' },
      reason: 'Tested',
      message: 'm',
      type: 'Normal',
      count: 1,
      firstTimestamp: now,
      lastTimestamp: now,
      source: { component: 'test' },
    },
  ],
  [
    '/apis/events.k8s.io/v1/namespaces/default/events',
    'default',
    {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'pb-ev2' },
      eventTime: '2026-12-03T12:00:00.250000Z',
      reportingController: 'example.com/test',
      reportingInstance: 't-1',
      action: 'Test',
      reason: 'Tested',
      regarding: { kind: 'ConfigMap', name: 'pb-cm', namespace: 'default' },
      note: 'n',
      type: 'Normal',
    },
  ],
  [
    '/apis/coordination.k8s.io/v1/namespaces/default/leases',
    'default',
    {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'pb-lease' },
      spec: {
        holderIdentity: 'me',
        leaseDurationSeconds: 15,
        renewTime: '2026-12-03T12:00:00.123456Z',
        leaseTransitions: 0,
      },
    },
  ],
  [
    '/api/v1/nodes',
    '',
    {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'pb-node' },
      spec: { providerID: 'test://n', taints: [{ key: 'k', effect: 'NoSchedule' }] },
      status: {
        capacity: { cpu: '2', memory: '4Gi' },
        conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: now, lastTransitionTime: now }],
        addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
      },
    },
  ],
  [
    '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
    '',
    {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'pbthings.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Cluster',
        names: { plural: 'pbthings', singular: 'pbthing', kind: 'PbThing', listKind: 'PbThingList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            subresources: { status: {} },
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: {
                    type: 'object',
                    properties: {
                      size: { type: 'integer', minimum: 0, default: 1 },
                      mode: { type: 'string', enum: ['a', 'b'] },
                    },
                    required: ['mode'],
                  },
                  status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                },
              },
            },
          },
        ],
      },
    },
  ],
];

describe('protobuf requests', () => {
  it.each(kinds.map(([path, ns, obj]) => [`${obj.apiVersion} ${obj.kind}`, path, ns, obj]))(
    '%s: create, get and list as protobuf; the JSON path reads the same object',
    async (_name, path, _ns, obj) => {
      const created = protobufAnswer(await request('POST', path, encodeObject(obj), PB));
      // kube's TaintNodesByCondition admission taints a new Node not-ready.
      const sent =
        obj.kind === 'Node'
          ? {
              ...obj,
              spec: {
                ...obj.spec,
                taints: [...obj.spec.taints, { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }],
              },
            }
          : obj;
      expect(created).toMatchObject({
        ...sent,
        metadata: { ...obj.metadata, uid: expect.any(String), resourceVersion: expect.any(String) },
      });
      const item = `${path}/${obj.metadata.name}`;
      // A CRD's status is written after its create, by kube's naming and establishing controllers: read it once settled.
      const crd = obj.kind === 'CustomResourceDefinition';
      const asJson = await waitFor(
        async () => {
          const got = json(await request('GET', item, undefined, { Accept: 'application/json' }));
          return !crd || got.status.conditions?.some((c: any) => c.type === 'Established' && c.status === 'True')
            ? got
            : undefined;
        },
        10_000,
        'the object settled',
      );
      expect(protobufAnswer(await request('GET', item, undefined, PB))).toEqual(asJson);
      if (crd) {
        const settledFields = (o: any) => ({
          ...o,
          status: undefined,
          metadata: { ...o.metadata, resourceVersion: undefined, managedFields: undefined },
        });
        expect(settledFields(created)).toEqual(settledFields(asJson));
        expect(asJson.metadata.managedFields).toEqual(expect.arrayContaining(created.metadata.managedFields));
      } else expect(created).toEqual(asJson);
      const list = protobufAnswer(await request('GET', path, undefined, PB));
      expect(list.kind).toBe(`${obj.kind}List`);
      expect(list.items.map((i: any) => i.metadata.name)).toContain(obj.metadata.name);
    },
  );

  it('a CRD created as protobuf serves its custom resources (with its schema: defaults, validation)', async () => {
    const things = '/apis/example.com/v1/pbthings';
    const created = json(
      await request(
        'POST',
        things,
        Buffer.from(
          JSON.stringify({
            apiVersion: 'example.com/v1',
            kind: 'PbThing',
            metadata: { name: 't' },
            spec: { mode: 'a' },
          }),
        ),
        {
          'Content-Type': 'application/json',
          Accept: 'application/json',
        },
      ),
    );
    expect(created.spec).toEqual({ mode: 'a', size: 1 });
    const bad = await request(
      'POST',
      things,
      Buffer.from(
        JSON.stringify({ apiVersion: 'example.com/v1', kind: 'PbThing', metadata: { name: 'u' }, spec: { mode: 'c' } }),
      ),
      {
        'Content-Type': 'application/json',
        Accept: 'application/json',
      },
    );
    expect(bad.code).toBe(422);
  });

  it('update (PUT) with a protobuf body', async () => {
    const live = json(await request('GET', `${cms}/pb-cm`, undefined, { Accept: 'application/json' }));
    const updated = protobufAnswer(
      await request('PUT', `${cms}/pb-cm`, encodeObject({ ...live, data: { k: 'v2' } }), PB),
    );
    expect(updated.data).toEqual({ k: 'v2' });
    expect(Number(updated.metadata.resourceVersion)).toBeGreaterThan(Number(live.metadata.resourceVersion));
  });

  it('delete with protobuf DeleteOptions (preconditions and dryRun are honoured)', async () => {
    const DeleteOptions = messageType('k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions');
    const Unknown = messageType('k8s.io.apimachinery.pkg.runtime.Unknown');
    const opts = (o: object) =>
      Buffer.concat([
        Buffer.from('k8s\0'),
        Unknown.encode(
          Unknown.fromObject({
            typeMeta: { apiVersion: 'v1', kind: 'DeleteOptions' },
            raw: DeleteOptions.encode(DeleteOptions.fromObject(o)).finish(),
          }),
        ).finish(),
      ]);
    const conflict = await request('DELETE', `${cms}/pb-cm`, opts({ preconditions: { uid: 'not-the-uid' } }), PB);
    expect(conflict.code).toBe(409);
    const uid = json(await request('GET', `${cms}/pb-cm`, undefined, { Accept: 'application/json' })).metadata.uid;
    expect(protobufAnswer(conflict)).toMatchObject({
      kind: 'Status',
      reason: 'Conflict',
      message: `Operation cannot be fulfilled on ConfigMap "pb-cm": the UID in the precondition (not-the-uid) does not match the UID in record (${uid}). The object might have been deleted and then recreated`,
    });
    expect((await request('DELETE', `${cms}/pb-cm`, opts({ dryRun: ['All'] }), PB)).code).toBe(200);
    expect((await request('GET', `${cms}/pb-cm`)).code).toBe(200);
    expect((await request('DELETE', `${cms}/pb-cm`, opts({ propagationPolicy: 'Background' }), PB)).code).toBe(200);
    expect((await request('GET', `${cms}/pb-cm`)).code).toBe(404);
  });
});

// Worded as kube's create handler (transformDecodeError): a body without a readable kind "is unrecognized" (with the
// first 30 bytes in hex), one whose envelope names a kind "cannot be handled" as the URL's.
describe('bad protobuf bodies', () => {
  const good = encodeObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bad' } });
  const hex30 = (b: Buffer) => `${b.subarray(0, 30).toString('hex')}${b.length > 30 ? ' ...' : ''}`;
  const truncated = good.subarray(0, good.length - 3);
  it.each([
    [
      'garbage',
      Buffer.from('not protobuf at all'),
      `the object provided is unrecognized (must be of type ConfigMap): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] (${hex30(Buffer.from('not protobuf at all'))})`,
    ],
    [
      'truncated',
      truncated,
      `the object provided is unrecognized (must be of type ConfigMap): unexpected EOF (${hex30(truncated)})`,
    ],
    [
      'a kind without a schema',
      Buffer.concat([Buffer.from('k8s\0'), Buffer.from([0x0a, 0x07, 0x0a, 0x02, 0x76, 0x31, 0x12, 0x01, 0x58])]),
      'X in version "v1" cannot be handled as a ConfigMap: no kind "X" is registered for version "v1" in scheme "pkg/runtime/scheme.go:111"',
    ],
  ])('%s: 400 BadRequest with a clear message; the server stays up', async (_name, body, message) => {
    const r = await request('POST', cms, body as Buffer, { Accept: 'application/json' });
    expect(r.code).toBe(400);
    expect(json(r)).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400, message });
    expect((await rawRequest(conn, 'GET', cms)).code).toBe(200);
  });

  it('the Status of a bad body comes as protobuf when protobuf is accepted', async () => {
    const r = await request('POST', cms, Buffer.from('junk'), PB);
    expect(r.code).toBe(400);
    expect(protobufAnswer(r)).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'BadRequest', code: 400 });
  });

  it('a protobuf body of another kind than the URL is 400 (as for JSON)', async () => {
    const r = await request('POST', cms, encodeObject({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } }), {
      Accept: 'application/json',
    });
    expect(r.code).toBe(400);
    expect(json(r).message).toBe(
      'Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion',
    );
  });
});

describe('custom resources (not their CRDs) stay JSON-only, as in kube', () => {
  const widgets = '/apis/example.com/v1/namespaces/default/widgets';
  // kube-apiserver v1.36.3 panics on it (a nil decoder in apiextensions-apiserver's customresource_handler.go
  // schemaCoercingDecoder) and resets the stream; listed in docs/architecture.md.
  itEmbedded('a protobuf body is 415 UnsupportedMediaType', async () => {
    const r = await request('POST', widgets, Buffer.from('k8s\0'), { Accept: 'application/json' });
    expect(r.code).toBe(415);
    expect(json(r)).toMatchObject({
      reason: 'UnsupportedMediaType',
      message: expect.stringContaining('application/vnd.kubernetes.protobuf is not supported for widgets.example.com'),
    });
  });

  it('Accept protobuf,json gets JSON; protobuf alone is 406 NotAcceptable', async () => {
    const fallback = await request('GET', widgets, undefined, PB);
    expect(fallback.code).toBe(200);
    expect(fallback.contentType).toBe('application/json');
    expect(json(fallback).kind).toBe('WidgetList');
    const only = await request('GET', widgets, undefined, { Accept: PROTOBUF_MEDIA_TYPE });
    expect(only.code).toBe(406);
    // The Status is a built-in kind: it comes in the protobuf the client asked for.
    expect(protobufAnswer(only)).toMatchObject({
      reason: 'NotAcceptable',
      code: 406,
      message:
        'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    });
  });
});

describe('responses', () => {
  it('errors are protobuf Status when protobuf is negotiated', async () => {
    const r = await request('GET', `${cms}/nope`, undefined, PB);
    expect(r.code).toBe(404);
    expect(protobufAnswer(r)).toEqual({
      apiVersion: 'v1',
      kind: 'Status',
      status: 'Failure',
      message: 'configmaps "nope" not found',
      reason: 'NotFound',
      code: 404,
      details: { name: 'nope', kind: 'configmaps' },
    });
  });

  it('JSON stays the default', async () => {
    expect((await request('GET', cms)).contentType).toBe('application/json');
    expect(
      (
        await request('GET', cms, undefined, {
          Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json',
        })
      ).contentType,
    ).toBe('application/json');
  });
});

/** Opens a watch and collects the raw bytes of its stream. */
describe('protobuf watch streams', () => {
  it('length-prefixed WatchEvents with protobuf objects: initial ADDED, the initial-events-end BOOKMARK, then MODIFIED; the same events as JSON', async () => {
    const cm = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'watched', namespace: 'default', labels: { w: 'pb' } },
      data: { n: '1' },
    };
    expect((await request('POST', cms, encodeObject(cm), PB)).code).toBe(201);
    const w = openWatch(
      `${cms}?watch=true&labelSelector=w%3Dpb&allowWatchBookmarks=true`,
      `${PROTOBUF_MEDIA_TYPE},application/json`,
    );
    const asJson = openWatch(`${cms}?watch=true&labelSelector=w%3Dpb`, 'application/json');
    try {
      await Promise.all([w.opened, asJson.opened]);
      expect(w.contentType()).toBe('application/vnd.kubernetes.protobuf;stream=watch');
      expect(asJson.contentType()).toBe('application/json');
      // The current object, then the bookmark ending the initial events (kube's WatchList defaulting).
      const [added, initialEnd] = await waitFor(
        () => {
          const evs = decodeWatchFrames(w.data());
          return evs.length >= 2 ? evs : undefined;
        },
        5000,
        'ADDED and the initial-events-end BOOKMARK',
      );
      expect(added.type).toBe('ADDED');
      expect(initialEnd).toEqual({
        type: 'BOOKMARK',
        object: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { resourceVersion: expect.any(String), annotations: { 'k8s.io/initial-events-end': 'true' } },
        },
      });
      const live = json(await request('GET', `${cms}/watched`, undefined, { Accept: 'application/json' }));
      expect((await request('PUT', `${cms}/watched`, encodeObject({ ...live, data: { n: '2' } }), PB)).code).toBe(200);
      const events = await waitFor(
        () => {
          const evs = decodeWatchFrames(w.data());
          return evs.some((e) => e.type === 'MODIFIED') ? evs : undefined;
        },
        5000,
        'MODIFIED',
      );
      const objects = events.filter((e) => e.type !== 'BOOKMARK');
      expect(objects.map((e) => [e.type, (e.object as any).data])).toEqual([
        ['ADDED', { n: '1' }],
        ['MODIFIED', { n: '2' }],
      ]);
      const jsonEvents = await waitFor(
        () => {
          const lines = asJson
            .data()
            .toString('utf8')
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l));
          return lines.length === 2 ? lines : undefined;
        },
        5000,
        'JSON events',
      );
      expect(objects).toEqual(jsonEvents);
    } finally {
      w.stop();
      asJson.stop();
    }
  });

  it('a watch that cannot start is one protobuf ERROR event (410 Expired)', async () => {
    // Events: kube-apiserver serves their watches from etcd, where a compacted revision is 410 (see lifecycle).
    const events = '/api/v1/namespaces/default/events';
    for (let i = 0; i < 60; i++) {
      const ev = {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: `churn-${i}` },
        involvedObject: { kind: 'ConfigMap', name: 'x', namespace: 'default' },
        reason: 'Churn',
      };
      expect((await rawRequest(conn, 'POST', events, ev)).code).toBe(201);
    }
    await compactHistory(ts);
    const w = openWatch(`${events}?watch=true&resourceVersion=1`, PROTOBUF_MEDIA_TYPE);
    await w.opened;
    const frames = await waitFor(
      () => {
        try {
          const evs = decodeWatchFrames(w.data());
          return evs.length ? evs : undefined;
        } catch {
          return undefined; // a frame still arriving
        }
      },
      5000,
      'ERROR event',
    );
    w.stop();
    expect(frames).toEqual([
      {
        type: 'ERROR',
        object: expect.objectContaining({ apiVersion: 'v1', kind: 'Status', code: 410, reason: 'Expired' }),
      },
    ]);
  });

  it('custom resources: protobuf,json gets a JSON stream; protobuf alone is 406', async () => {
    const widgets = '/apis/example.com/v1/namespaces/default/widgets';
    expect((await request('GET', `${widgets}?watch=true`, undefined, { Accept: PROTOBUF_MEDIA_TYPE })).code).toBe(406);
    const w = openWatch(`${widgets}?watch=true`, `${PROTOBUF_MEDIA_TYPE},application/json`);
    await w.opened;
    w.stop();
    expect(w.contentType()).toBe('application/json');
  });
});
