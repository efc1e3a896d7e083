// Admission webhooks called as kube-apiserver calls them (k8s.io/apiserver pkg/admission/plugin/webhook): a real
// HTTPS webhook in the test denies, patches, warns, times out and records what it was sent; on both targets, with
// kube-apiserver the referee for every answer.
import * as https from 'node:https';
import { createServer } from 'node:net';
import { widgetCrd } from './support/fixtures';
import { kubectlSuite } from './support/kubectl';
import { startWebhookServer, type WebhookServer } from './support/webhook-server';

jest.setTimeout(90_000);

const { suite, kubectl } = kubectlSuite('apiserver-admission-', [widgetCrd]);
let hook: WebhookServer;
let closedPort: number;

const NS = 'default';
const widgets = (ns = NS) => `/apis/example.com/v1/namespaces/${ns}/widgets`;
const ADMISSION = '/apis/admissionregistration.k8s.io/v1';
const widget = (name: string, labels: Record<string, string> = {}, spec: object = { size: 1 }) => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name, labels },
  spec,
});

/** A request answered with its status, parsed body and Warning headers. */
function call(method: string, path: string, body?: unknown, contentType = 'application/json') {
  const c = suite.ts.conn;
  return new Promise<{ code: number; body: any; warnings: string[] }>((resolve, reject) => {
    const req = https.request(
      new URL(path, c.url),
      {
        method,
        ca: Buffer.from(c.caData!, 'base64'),
        headers: { Authorization: `Bearer ${c.token}`, 'Content-Type': contentType, Accept: 'application/json' },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d) => chunks.push(d));
        res.on('end', () => {
          const w = res.headers.warning;
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            code: res.statusCode ?? 0,
            body: text ? JSON.parse(text) : undefined,
            warnings: (Array.isArray(w) ? w : w ? w.split(/,(?=\s*299)/) : []).map((s) => s.trim()),
          });
        });
      },
    );
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

const rule = (operations: string[], resources = ['widgets']) => ({
  operations,
  apiGroups: ['example.com'],
  apiVersions: ['v1'],
  resources,
});
const webhook = (name: string, url: string, extra: object = {}) => ({
  name: `${name}.wh-test.example.com`,
  clientConfig: { url, caBundle: hook.caBundle },
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
  rules: [rule(['CREATE', 'UPDATE'])],
  ...extra,
});
const labelled = (key: string) => ({ objectSelector: { matchLabels: { [key]: 'yes' } } });

/** Polls until `done` holds: kube-apiserver reads webhook configurations and namespaces through informers. */
async function eventually<T>(fn: () => Promise<T>, done: (v: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const v = await fn();
    if (done(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const reviewsOf = (name: string) =>
  hook.reviews.filter((r) => r.path === '/warn' && r.request.name === name).map((r) => r.request);

beforeAll(async () => {
  hook = await startWebhookServer();
  closedPort = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
  const unreachable = `https://127.0.0.1:${closedPort}/unreachable`;
  const mutating = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: { name: 'wh-test-mutate' },
    webhooks: [webhook('mutate', hook.url('/mutate'), labelled('wh-mutate'))],
  };
  const validating = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'wh-test-validate' },
    webhooks: [
      webhook('record', hook.url('/warn'), {
        ...labelled('wh-record'),
        rules: [rule(['*'], ['widgets', 'widgets/status'])],
      }),
      webhook('deny', hook.url('/deny-invalid'), { ...labelled('wh-deny'), rules: [rule(['CREATE'])] }),
      webhook('nodelete', hook.url('/deny-plain'), { ...labelled('wh-nodelete'), rules: [rule(['DELETE'])] }),
      webhook('plain', hook.url('/deny-plain'), { ...labelled('wh-plain'), rules: [rule(['CREATE'])] }),
      webhook('ns', hook.url('/deny-plain'), { namespaceSelector: { matchLabels: { 'wh-test': 'deny' } } }),
      webhook('fail', unreachable, { ...labelled('wh-fail'), failurePolicy: 'Fail' }),
      webhook('ignore', unreachable, { ...labelled('wh-ignore'), failurePolicy: 'Ignore' }),
      webhook('slow', hook.url('/slow'), { ...labelled('wh-slow'), timeoutSeconds: 1 }),
    ],
  };
  for (const [plural, obj] of [
    ['mutatingwebhookconfigurations', mutating],
    ['validatingwebhookconfigurations', validating],
  ] as const) {
    const r = await call('POST', `${ADMISSION}/${plural}`, obj);
    if (r.code !== 201) throw new Error(`creating ${plural}: ${JSON.stringify(r.body)}`);
  }
  await eventually(
    () => call('POST', `${widgets()}?dryRun=All`, widget('probe', { 'wh-deny': 'yes', 'wh-mutate': 'yes' })),
    (r) => r.code === 422,
    'the validating webhooks',
  );
  await eventually(
    () => call('POST', `${widgets()}?dryRun=All`, widget('probe', { 'wh-mutate': 'yes' })),
    (r) => r.body?.spec?.color === 'green',
    'the mutating webhook',
  );
});
afterAll(async () => {
  await hook?.close();
});

describe('admission webhooks', () => {
  it('a denial is the Status the webhook gave, prefixed as kube words it (422 Invalid), and nothing is stored', async () => {
    const r = await call('POST', widgets(), widget('w-deny', { 'wh-deny': 'yes' }));
    expect(r.code).toBe(422);
    expect(r.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'admission webhook "deny.wh-test.example.com" denied the request: Widget.example.com "w-deny" is invalid: spec.size: Invalid value: 5: must be at most 3',
      reason: 'Invalid',
      details: {
        name: 'w-deny',
        group: 'example.com',
        kind: 'Widget',
        causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: 5: must be at most 3', field: 'spec.size' }],
      },
      code: 422,
    });
    expect((await call('GET', `${widgets()}/w-deny`)).code).toBe(404);
  });

  it('a mutating webhook patches the object before the server defaults it; validating webhooks see the result, with the AdmissionReview fields kube sends', async () => {
    const r = await call(
      'POST',
      `${widgets()}?fieldManager=wh-test`,
      widget('w-mutate', { 'wh-mutate': 'yes', 'wh-record': 'yes' }),
    );
    expect(r.code).toBe(201);
    expect(r.body.spec).toEqual({ size: 1, color: 'green' });
    expect(r.body.metadata.annotations).toEqual({ 'mutated-by': 'test-webhook' });
    expect(r.warnings).toEqual(['299 - "test webhook: looked at it"']);
    const [review] = reviewsOf('w-mutate');
    const gvk = { group: 'example.com', version: 'v1', kind: 'Widget' };
    const gvr = { group: 'example.com', version: 'v1', resource: 'widgets' };
    expect(review).toMatchObject({
      kind: gvk,
      resource: gvr,
      requestKind: gvk,
      requestResource: gvr,
      name: 'w-mutate',
      namespace: NS,
      operation: 'CREATE',
      oldObject: null,
      dryRun: false,
      options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', fieldManager: 'wh-test' },
    });
    expect(review.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(review.userInfo.groups).toContain('system:masters');
    expect(review.subResource).toBeUndefined();
    expect(review.object.spec).toEqual({ size: 1, color: 'green' });
    expect(review.object.metadata.annotations).toEqual({ 'mutated-by': 'test-webhook' });
    if (suite.ts.target === 'embedded') expect(review.userInfo.username).toBe('capi-embedded-admin');
  });

  it('updates (PUT, merge patch, server-side apply, the status subresource) send UPDATE with the oldObject', async () => {
    const created = await call('POST', widgets(), widget('w-update', { 'wh-record': 'yes' }));
    expect(created.code).toBe(201);
    const put = await call('PUT', `${widgets()}/w-update`, {
      ...created.body,
      spec: { ...created.body.spec, size: 2 },
    });
    expect(put.code).toBe(200);
    const patched = await call('PATCH', `${widgets()}/w-update`, { spec: { size: 3 } }, 'application/merge-patch+json');
    expect(patched.code).toBe(200);
    const applied = await call(
      'PATCH',
      `${widgets()}/w-update?fieldManager=wh-apply`,
      { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w-update' }, spec: { tags: ['a'] } },
      'application/apply-patch+yaml',
    );
    expect(applied.code).toBe(200);
    const status = await call('PUT', `${widgets()}/w-update/status`, { ...applied.body, status: { phase: 'Ready' } });
    expect(status.code).toBe(200);
    const reviews = reviewsOf('w-update');
    expect(
      reviews.map((r) => [r.operation, r.subResource ?? '', r.oldObject?.spec?.size, r.object?.spec?.size]),
    ).toEqual([
      ['CREATE', '', undefined, 1],
      ['UPDATE', '', 1, 2],
      ['UPDATE', '', 2, 3],
      ['UPDATE', '', 3, 3],
      ['UPDATE', 'status', 3, 3],
    ]);
    expect(reviews[1].options).toEqual({ kind: 'UpdateOptions', apiVersion: 'meta.k8s.io/v1' });
    expect(reviews[3].options).toEqual({
      kind: 'UpdateOptions',
      apiVersion: 'meta.k8s.io/v1',
      fieldManager: 'wh-apply',
    });
    expect(reviews[4]).toMatchObject({ requestSubResource: 'status', object: { status: { phase: 'Ready' } } });
  });

  it('namespaceSelector and objectSelector: a webhook is only called for matching namespaces and objects', async () => {
    const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'wh-denied', labels: { 'wh-test': 'deny' } } };
    expect((await call('POST', '/api/v1/namespaces', ns)).code).toBe(201);
    const denied = await eventually(
      () => call('POST', `${widgets('wh-denied')}?dryRun=All`, widget('w-ns')),
      (r) => r.code !== 201,
      'the namespace selector',
    );
    expect(denied).toMatchObject({
      code: 400,
      body: {
        status: 'Failure',
        message: 'admission webhook "ns.wh-test.example.com" denied the request: keep me',
        code: 400,
      },
    });
    expect((await call('POST', widgets(), widget('w-plain'))).code).toBe(201);
    expect(hook.reviews.filter((r) => r.request.name === 'w-plain')).toEqual([]);
  });

  it('failurePolicy: an unreachable webhook refuses the request under Fail (500) and is skipped under Ignore', async () => {
    const fail = await call('POST', widgets(), widget('w-fail', { 'wh-fail': 'yes' }));
    const url = `https://127.0.0.1:${closedPort}/unreachable?timeout=10s`;
    const message = `failed calling webhook "fail.wh-test.example.com": failed to call webhook: Post "${url}": dial tcp 127.0.0.1:${closedPort}: connect: connection refused`;
    expect(fail.code).toBe(500);
    expect(fail.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `Internal error occurred: ${message}`,
      reason: 'InternalError',
      details: { causes: [{ message }] },
      code: 500,
    });
    expect((await call('POST', widgets(), widget('w-ignore', { 'wh-ignore': 'yes' }))).code).toBe(201);
  });

  it('a webhook slower than its timeoutSeconds fails the call', async () => {
    const r = await call('POST', widgets(), widget('w-slow', { 'wh-slow': 'yes' }));
    expect(r.code).toBe(500);
    expect(r.body.message).toMatch(
      /^Internal error occurred: failed calling webhook "slow\.wh-test\.example\.com": failed to call webhook: Post "https:\/\/127\.0\.0\.1:\d+\/slow\?timeout=1s": context deadline exceeded/,
    );
  });

  it('a dry run reaches webhooks with dryRun set and stores nothing; sideEffects other than None/NoneOnDryRun are refused', async () => {
    const r = await call('POST', `${widgets()}?dryRun=All`, widget('w-dry', { 'wh-record': 'yes' }));
    expect(r.code).toBe(201);
    expect(reviewsOf('w-dry')).toEqual([
      expect.objectContaining({
        dryRun: true,
        options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', dryRun: ['All'] },
      }),
    ]);
    expect((await call('GET', `${widgets()}/w-dry`)).code).toBe(404);
    const bad = await call('POST', `${ADMISSION}/validatingwebhookconfigurations`, {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'wh-test-unknown' },
      webhooks: [webhook('unknown', hook.url('/allow'), { sideEffects: 'Unknown' })],
    });
    expect(bad.code).toBe(422);
    expect(bad.body.details.causes).toEqual([
      {
        reason: 'FieldValueNotSupported',
        message: 'Unsupported value: "Unknown": supported values: "None", "NoneOnDryRun"',
        field: 'webhooks[0].sideEffects',
      },
    ]);
  });

  it('delete: validating webhooks see the object as oldObject, and a denial keeps it', async () => {
    expect((await call('POST', widgets(), widget('w-keep', { 'wh-nodelete': 'yes', 'wh-record': 'yes' }))).code).toBe(
      201,
    );
    const r = await call('DELETE', `${widgets()}/w-keep`);
    expect(r).toMatchObject({
      code: 400,
      body: { message: 'admission webhook "nodelete.wh-test.example.com" denied the request: keep me' },
    });
    expect((await call('GET', `${widgets()}/w-keep`)).code).toBe(200);
    const del = reviewsOf('w-keep').find((x) => x.operation === 'DELETE');
    expect(del).toMatchObject({ object: null, oldObject: { metadata: { name: 'w-keep' } } });
    expect(del!.options).toMatchObject({ kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1' });
    await call(
      'PATCH',
      `${widgets()}/w-keep`,
      { metadata: { labels: { 'wh-nodelete': null } } },
      'application/merge-patch+json',
    );
    expect((await call('DELETE', `${widgets()}/w-keep`)).code).toBe(200);
  });

  it('a webhook configuration applied by two managers keeps both webhooks (a list-map keyed by name)', async () => {
    const config = (name: string) =>
      JSON.stringify({
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name: 'wh-test-ssa' },
        webhooks: [{ ...webhook(name, hook.url('/allow')), rules: [rule(['CREATE'], ['nothings'])] }],
      });
    for (const m of ['a', 'b']) {
      const r = await kubectl(['apply', '--server-side', `--field-manager=${m}`, '-f', '-'], config(m));
      expect([r.code, r.stderr]).toEqual([0, '']);
    }
    const got = await call('GET', `${ADMISSION}/validatingwebhookconfigurations/wh-test-ssa`);
    expect(got.body.webhooks.map((w: any) => w.name)).toEqual(['a.wh-test.example.com', 'b.wh-test.example.com']);
    expect(got.body.webhooks[0]).toMatchObject({
      failurePolicy: 'Fail',
      matchPolicy: 'Equivalent',
      namespaceSelector: {},
      objectSelector: {},
      timeoutSeconds: 10,
      rules: [{ scope: '*' }],
    });
    expect((await call('DELETE', `${ADMISSION}/validatingwebhookconfigurations/wh-test-ssa`)).code).toBe(200);
    // Client-side apply validates against the group's OpenAPI and keeps its last-applied annotation.
    const csa = await kubectl(['apply', '-f', '-'], config('c'));
    expect([csa.code, csa.stdout, csa.stderr]).toEqual([
      0,
      'validatingwebhookconfiguration.admissionregistration.k8s.io/wh-test-ssa created\n',
      '',
    ]);
    expect((await call('DELETE', `${ADMISSION}/validatingwebhookconfigurations/wh-test-ssa`)).code).toBe(200);
  });

  it('kubectl apply of a denied object prints the webhook message (a 422 with causes: the causes, as kubectl words them)', async () => {
    const plain = await kubectl(['apply', '-f', '-'], JSON.stringify(widget('w-kubectl', { 'wh-plain': 'yes' })));
    expect(plain.code).toBe(1);
    expect(plain.stderr).toBe(
      'Error from server: error when creating "STDIN": admission webhook "plain.wh-test.example.com" denied the request: keep me\n',
    );
    const invalid = await kubectl(['apply', '-f', '-'], JSON.stringify(widget('w-kubectl', { 'wh-deny': 'yes' })));
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toBe('The Widget "w-kubectl" is invalid: spec.size: Invalid value: 5: must be at most 3\n');
  });
});
