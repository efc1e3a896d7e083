// Bad input gets proper Status codes and the server stays up; auth and discovery documents.
import * as https from 'node:https';
import { rawRequest, type Conn } from './support/test-client';
import { embedded, itEmbedded, startTestServer, type TestServer } from './support/server';
import { RequestMetrics } from '../src/server/metrics';

let ts: TestServer;
let conn: Conn;
beforeAll(async () => {
  ts = await startTestServer();
  conn = ts.conn;
});
afterAll(async () => {
  await ts?.stop();
});

const cms = '/api/v1/namespaces/default/configmaps';

/** A JSON request whose answer keeps its headers. */
function rawRequestWithHeaders(
  c: Conn,
  method: string,
  path: string,
  body: unknown,
): Promise<{ code: number; text: string; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      new URL(path, c.url),
      {
        method,
        ca: Buffer.from(c.caData!, 'base64'),
        headers: { Authorization: `Bearer ${c.token}`, 'Content-Type': 'application/json' },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d) => chunks.push(d));
        res.on('end', () =>
          resolve({ code: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), headers: res.headers }),
        );
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}
const status = (text: string) => JSON.parse(text);

describe('bad input', () => {
  it('malformed JSON is 400 BadRequest', async () => {
    const r = await rawRequest(conn, 'POST', cms, '{"apiVersion": "v1", kind', 'application/json');
    expect(r.code).toBe(400);
    expect(status(r.text)).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'BadRequest', code: 400 });
  });

  // kube's handler chain: go-restful answers under the built-in groups (JSON Status); paths it does not claim end in
  // Go's http.NotFound text; the CRD handler answers an unknown subresource as the object not found.
  it('unknown resources: a JSON NotFound under built-in groups, the plain-text 404 elsewhere', async () => {
    for (const path of [
      '/api/v1/namespaces/default/doodads',
      '/apis/coordination.k8s.io/v1/doodads',
      '/apis/coordination.k8s.io/v9',
      '/api/v1/namespaces/default/configmaps/x/doodad',
    ]) {
      const r = await rawRequest(conn, 'GET', path);
      expect([path, r.code, status(r.text)]).toEqual([
        path,
        404,
        {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: 'the server could not find the requested resource',
          reason: 'NotFound',
          details: {},
          code: 404,
        },
      ]);
    }
    for (const path of [
      '/apis/example.com/v1/namespaces/default/doodads',
      '/apis/nope.io/v1',
      '/apis/nope.io',
      '/apis/example.com/v9/widgets',
      '/apis/example.com/v1/namespaces/default/gadgets',
      '/nope',
    ]) {
      const r = await rawRequest(conn, 'GET', path);
      expect([path, r.code, r.text]).toEqual([path, 404, '404 page not found\n']);
    }
    const sub = await rawRequest(conn, 'GET', '/apis/example.com/v1/namespaces/default/widgets/x/doodad');
    expect(status(sub.text)).toMatchObject({
      code: 404,
      reason: 'NotFound',
      message: 'widgets.example.com "x" not found',
      details: { name: 'x', group: 'example.com', kind: 'widgets' },
    });
  });

  // Built-in kinds decode into Go types (a missing apiVersion/kind is the URL's); custom resources are unstructured.
  it("body kind not matching the URL: 400 for built-ins (a missing one is the URL's), 422 for custom resources", async () => {
    const r = await rawRequest(conn, 'POST', cms, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } });
    expect(status(r.text)).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message:
        'Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion',
    });
    const defaulted = await rawRequest(conn, 'POST', cms, { metadata: { name: 'no-kind' } });
    expect(defaulted.code).toBe(201);
    expect(status(defaulted.text)).toMatchObject({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'no-kind' },
    });
    const widgets = '/apis/example.com/v1/namespaces/default/widgets';
    const gadget = await rawRequest(conn, 'POST', widgets, {
      apiVersion: 'example.com/v1',
      kind: 'Gadget',
      metadata: { name: 'g' },
    });
    expect(status(gadget.text)).toMatchObject({
      code: 422,
      reason: 'Invalid',
      message: 'Gadget.example.com "g" is invalid: kind: Invalid value: "Gadget": must be Widget',
    });
    const noKind = await rawRequest(conn, 'POST', widgets, { apiVersion: 'example.com/v1', metadata: { name: 'k' } });
    expect(status(noKind.text)).toMatchObject({
      code: 400,
      message: expect.stringMatching(
        /^the object provided is unrecognized \(must be of type Widget\): Object 'Kind' is missing in '\{/,
      ),
    });
    const noVersion = await rawRequest(conn, 'POST', widgets, { kind: 'Widget', metadata: { name: 'v' } });
    expect(status(noVersion.text)).toMatchObject({
      code: 400,
      message: 'the API version in the data () does not match the expected API version (example.com/v1)',
    });
  });

  it('wrong resourceVersion on update is 409 Conflict', async () => {
    const created = status(
      (await rawRequest(conn, 'POST', cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'rv' } })).text,
    );
    const r = await rawRequest(conn, 'PUT', `${cms}/rv`, {
      ...created,
      metadata: { ...created.metadata, resourceVersion: '1' },
    });
    expect(r.code).toBe(409);
    expect(status(r.text)).toMatchObject({ reason: 'Conflict', details: { name: 'rv', kind: 'configmaps' } });
  });

  it('PUT of a missing object is 404, except for Leases', async () => {
    const r = await rawRequest(conn, 'PUT', `${cms}/missing`, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'missing' },
    });
    expect(r.code).toBe(404);
    const lease = await rawRequest(conn, 'PUT', '/apis/coordination.k8s.io/v1/namespaces/default/leases/put-created', {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'put-created' },
      spec: { holderIdentity: 'x' },
    });
    expect(lease.code).toBe(201);
  });

  it('server-side apply answers 201 when it creates the object and 200 when it changes or keeps it, as kube', async () => {
    const body = JSON.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'apply-code' },
      data: { k: 'v1' },
    });
    const apply = (b: string, dryRun = '') =>
      rawRequest(conn, 'PATCH', `${cms}/apply-code?fieldManager=codes${dryRun}`, b, 'application/apply-patch+yaml');
    expect((await apply(body, '&dryRun=All')).code).toBe(201);
    expect((await apply(body)).code).toBe(201);
    expect((await apply(body)).code).toBe(200);
    expect((await apply(body.replace('v1"}', 'v2"}'))).code).toBe(200);
  });

  it('unsupported media type is 415, with the media types the verb takes', async () => {
    const r = await rawRequest(conn, 'POST', cms, 'name: x', 'application/x-protobuf-thing');
    expect(r.code).toBe(415);
    expect(status(r.text)).toMatchObject({
      reason: 'UnsupportedMediaType',
      message:
        'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    });
    const put = await rawRequest(conn, 'PUT', `${cms}/rv`, { data: {} }, 'application/merge-patch+json');
    expect(status(put.text)).toMatchObject({
      code: 415,
      message:
        'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    });
    // PATCH routes are chosen by Content-Type: none matches, go-restful's own 415.
    const p = await rawRequest(conn, 'PATCH', `${cms}/rv`, { data: {} }, 'application/json');
    expect(status(p.text)).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: '415: Unsupported Media Type',
      reason: 'UnsupportedMediaType',
      details: {},
      code: 415,
    });
  });

  it('YAML bodies are taken for create and update', async () => {
    const r = await rawRequest(
      conn,
      'POST',
      cms,
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  k: v\n',
      'application/yaml',
    );
    expect(r.code).toBe(201);
    expect(status(r.text)).toMatchObject({ metadata: { name: 'from-yaml' }, data: { k: 'v' } });
  });

  it('strategic merge patch is rejected for custom resources (415) but works for built-ins', async () => {
    await rawRequest(conn, 'POST', '/apis/example.com/v1/namespaces/default/widgets', {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'smp' },
      spec: { size: 1 },
    });
    const r = await rawRequest(
      conn,
      'PATCH',
      '/apis/example.com/v1/namespaces/default/widgets/smp',
      { spec: { size: 2 } },
      'application/strategic-merge-patch+json',
    );
    expect(status(r.text)).toMatchObject({
      code: 415,
      reason: 'UnsupportedMediaType',
      message:
        'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
    });
    const ok = await rawRequest(
      conn,
      'PATCH',
      `${cms}/rv`,
      { data: { a: 'b' } },
      'application/strategic-merge-patch+json',
    );
    expect(ok.code).toBe(200);
    expect(status(ok.text).data).toEqual({ a: 'b' });
  });

  it('apply without fieldManager is 422 (PatchOptions invalid); bad selectors are 400', async () => {
    const r = await rawRequest(
      conn,
      'PATCH',
      `${cms}/rv`,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'rv' } },
      'application/apply-patch+yaml',
    );
    expect(r.code).toBe(422);
    expect(status(r.text)).toMatchObject({
      reason: 'Invalid',
      message: 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
      details: {
        group: 'meta.k8s.io',
        kind: 'PatchOptions',
        causes: [
          {
            reason: 'FieldValueRequired',
            message: 'Required value: is required for apply patch',
            field: 'fieldManager',
          },
        ],
      },
    });
    const s = await rawRequest(conn, 'GET', `${cms}?labelSelector=${encodeURIComponent('a=(b')}`);
    expect(s.code).toBe(400);
  });

  it("label selectors: 400 with labels.Parse's message for what kube-apiserver rejects, the rest accepted", async () => {
    const labelValue =
      "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
    const rejected: [string, string][] = [
      ['a=(b', "unable to parse requirement: found '(', expected: identifier"],
      ['a=-b', `unable to parse requirement: values[0][a]: Invalid value: "-b": ${labelValue}`],
      [
        'x<a',
        `unable to parse requirement: values[0]: Invalid value: "a": for 'Gt', 'Lt' operators, the value must be an integer`,
      ],
      ['x in (a),', "found '', expected: identifier after ','"],
    ];
    for (const [sel, message] of rejected) {
      const r = await rawRequest(conn, 'GET', `${cms}?labelSelector=${encodeURIComponent(sel)}`);
      expect([sel, r.code, status(r.text)]).toEqual([
        sel,
        400,
        { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'BadRequest', code: 400 },
      ]);
    }
    for (const sel of ['a in ()', 'x>1', 'notin=in', '!a,b notin (c,,d)']) {
      const r = await rawRequest(conn, 'GET', `${cms}?labelSelector=${encodeURIComponent(sel)}`);
      expect([sel, r.code]).toEqual([sel, 200]);
    }
  });

  it('invalid CRDs are 422 with causes', async () => {
    const r = await rawRequest(conn, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'wrong.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Sideways',
        names: { kind: 'Thing', plural: 'things' },
        versions: [{ name: 'v1', served: true, storage: true }],
      },
    });
    expect(r.code).toBe(422);
    const fields = status(r.text).details.causes.map((c: any) => c.field);
    expect(fields).toEqual(
      expect.arrayContaining(['spec.scope', 'metadata.name', 'spec.versions[0].schema.openAPIV3Schema']),
    );
  });

  it('unknown fields are pruned, or a 400 with fieldValidation=Strict', async () => {
    const w = (name: string) => ({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name },
      spec: { size: 1, bogus: 'x' },
    });
    const widgets = '/apis/example.com/v1/namespaces/default/widgets';
    const pruned = await rawRequest(conn, 'POST', widgets, w('pruned'));
    expect(pruned.code).toBe(201);
    expect(status(pruned.text).spec).toEqual({ size: 1, color: 'blue' });
    // Warn: the warnings come with the answer even when the write fails later (here its schema validation).
    const warned = await rawRequestWithHeaders(conn, 'POST', `${widgets}?fieldValidation=Warn`, {
      ...w('warned'),
      spec: { size: -1, bogus: 'x' },
    });
    expect(warned.code).toBe(422);
    expect(warned.headers.warning).toBe('299 - "unknown field \\"spec.bogus\\""');
    const strict = await rawRequest(conn, 'POST', `${widgets}?fieldValidation=Strict`, w('strict'));
    expect(strict.code).toBe(400);
    expect(status(strict.text).message).toBe(
      'Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.bogus"',
    );
    // A patch's unknown fields are an Invalid "patch" naming the patched object (kube's patch handler).
    const patched = await rawRequest(
      conn,
      'PATCH',
      `${widgets}/pruned?fieldValidation=Strict`,
      { spec: { bogus: 'y' } },
      'application/merge-patch+json',
    );
    expect(patched.code).toBe(422);
    expect(status(patched.text)).toMatchObject({
      reason: 'Invalid',
      details: { causes: [{ reason: 'FieldValueInvalid', field: 'patch' }] },
    });
    expect(status(patched.text).message).toMatch(
      /^ "" is invalid: patch: Invalid value: "\{\\"apiVersion\\":\\"example.com\/v1\\",.*\}": strict decoding error: unknown field "spec.bogus"$/,
    );
  });

  it('dryRun=All on update, patch and delete changes nothing; deletecollection honours the label selector', async () => {
    const base = `${cms}/dry-target`;
    const created = status(
      (
        await rawRequest(conn, 'POST', cms, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'dry-target', labels: { sweep: 'yes' } },
          data: { a: '1' },
        })
      ).text,
    );
    const put = await rawRequest(conn, 'PUT', `${base}?dryRun=All`, { ...created, data: { a: '2' } });
    expect(status(put.text).data).toEqual({ a: '2' });
    const patched = await rawRequest(
      conn,
      'PATCH',
      `${base}?dryRun=All`,
      { data: { a: '3' } },
      'application/merge-patch+json',
    );
    expect(status(patched.text).data).toEqual({ a: '3' });
    expect((await rawRequest(conn, 'DELETE', `${base}?dryRun=All`)).code).toBe(200);
    const still = status((await rawRequest(conn, 'GET', base)).text);
    expect(still.data).toEqual({ a: '1' });
    expect(still.metadata.resourceVersion).toBe(created.metadata.resourceVersion);

    await rawRequest(conn, 'POST', cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'keep-me' } });
    expect((await rawRequest(conn, 'DELETE', `${cms}?labelSelector=sweep%3Dyes`)).code).toBe(200);
    expect((await rawRequest(conn, 'GET', base)).code).toBe(404);
    expect((await rawRequest(conn, 'GET', `${cms}/keep-me`)).code).toBe(200);
  });

  it('the server is still up after all of that', async () => {
    const r = await rawRequest(conn, 'GET', '/api/v1/namespaces/default');
    expect(r.code).toBe(200);
  });
});

describe('auth', () => {
  it('requests without the bearer token get 401', async () => {
    const r = await rawRequest({ ...conn, token: 'wrong' }, 'GET', '/api/v1/namespaces');
    expect(r.code).toBe(401);
    expect(status(r.text)).toMatchObject({ reason: 'Unauthorized', code: 401 });
  });
  it('the kubeconfig carries the token and the CA', () => {
    expect(ts.kubeconfig).toContain(conn.token);
    expect(ts.kubeconfig).toContain(`certificate-authority-data: ${conn.caData}`);
    expect(conn.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  });
});

describe('discovery and OpenAPI', () => {
  it('legacy discovery lists core, built-in groups and CRD groups', async () => {
    expect(status((await rawRequest(conn, 'GET', '/api')).text)).toMatchObject({
      kind: 'APIVersions',
      versions: ['v1'],
    });
    const groups = status((await rawRequest(conn, 'GET', '/apis')).text).groups.map((g: any) => g.name);
    expect(groups).toEqual(
      expect.arrayContaining(['example.com', 'coordination.k8s.io', 'events.k8s.io', 'apiextensions.k8s.io']),
    );
    const rl = status((await rawRequest(conn, 'GET', '/apis/example.com/v1')).text);
    expect(rl.resources).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'widgets', kind: 'Widget', namespaced: true, shortNames: ['wd'] }),
        expect.objectContaining({ name: 'widgets/status' }),
      ]),
    );
  });

  it('aggregated discovery when asked for it', async () => {
    const r = await rawRequest(conn, 'GET', '/apis', undefined, undefined, {
      Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json',
    });
    const doc = status(r.text);
    expect(doc.kind).toBe('APIGroupDiscoveryList');
    const ex = doc.items.find((i: any) => i.metadata.name === 'example.com');
    expect(ex.versions[0].resources).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          resource: 'widgets',
          scope: 'Namespaced',
          responseKind: { group: 'example.com', version: 'v1', kind: 'Widget' },
        }),
      ]),
    );
  });

  it('OpenAPI v3 index and group-version documents with GVK and fieldValidation', async () => {
    const index = status((await rawRequest(conn, 'GET', '/openapi/v3')).text);
    const url = index.paths['apis/example.com/v1'].serverRelativeURL;
    expect(url).toMatch(/^\/openapi\/v3\/apis\/example.com\/v1\?hash=/);
    const doc = status((await rawRequest(conn, 'GET', url)).text);
    expect(doc.components.schemas['com.example.v1.Widget']['x-kubernetes-group-version-kind']).toEqual([
      { group: 'example.com', version: 'v1', kind: 'Widget' },
    ]);
    const patch = doc.paths['/apis/example.com/v1/namespaces/{namespace}/widgets/{name}'].patch;
    expect(patch.parameters.map((p: any) => p.name)).toContain('fieldValidation');
  });

  it('/version', async () => {
    expect(status((await rawRequest(conn, 'GET', '/version')).text)).toMatchObject({
      major: '1',
      gitVersion: expect.stringMatching(/^v1\./),
    });
  });
});

// The embedded server's own request counters (kube-apiserver has /metrics, not these).
describe('request metrics', () => {
  itEmbedded('counts requests by verb and resource; snapshots are stable; reset clears', async () => {
    embedded(ts).resetRequests();
    await rawRequest(conn, 'GET', cms);
    await rawRequest(conn, 'POST', cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'counted' } });
    const snap = embedded(ts).countRequests();
    expect(snap.byVerbResource).toEqual({ 'list /configmaps': 1, 'create /configmaps': 1 });
    await rawRequest(conn, 'GET', cms);
    expect(snap.total).toBe(2);
    expect(embedded(ts).countRequests().total).toBe(3);
    embedded(ts).resetRequests();
    expect(embedded(ts).countRequests().total).toBe(0);
  });

  itEmbedded('counts each write with its field manager and outcome: changed, no-op or failed', async () => {
    embedded(ts).resetRequests();
    const merge = 'application/merge-patch+json';
    await rawRequest(conn, 'POST', `${cms}?fieldManager=writer`, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'outcomes' },
      data: { a: '1' },
    });
    await rawRequest(conn, 'PATCH', `${cms}/outcomes?fieldManager=writer`, { data: { a: '2' } }, merge);
    await rawRequest(conn, 'PATCH', `${cms}/outcomes?fieldManager=writer`, { data: { a: '2' } }, merge); // changes nothing
    await rawRequest(conn, 'PATCH', `${cms}/missing?fieldManager=writer`, { data: { a: '2' } }, merge); // 404
    await rawRequest(
      conn,
      'PATCH',
      `${cms}/outcomes?fieldManager=applier&force=true`,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'outcomes' }, data: { b: '1' } },
      'application/apply-patch+yaml',
    );
    await rawRequest(
      conn,
      'PATCH',
      `${cms}/outcomes?fieldManager=applier&dryRun=All`,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'outcomes' }, data: { b: '2' } },
      'application/apply-patch+yaml',
    );
    const snap = embedded(ts).countRequests();
    expect(snap.writesByManager).toEqual({
      'create /configmaps writer': 1,
      'patch /configmaps writer': 3,
      'apply /configmaps applier': 2,
    });
    expect(snap.noopWritesByManager).toEqual({ 'patch /configmaps writer': 1, 'apply /configmaps applier': 1 });
    expect(snap.failedWritesByManager).toEqual({ 'patch /configmaps writer': 1 });
    expect(snap.dryRunWritesByManager).toEqual({ 'apply /configmaps applier': 1 });
    expect(RequestMetrics.nonDryRunWrites(snap)).toBe(5);
  });
});
