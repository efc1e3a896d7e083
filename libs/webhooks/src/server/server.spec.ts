// The webhook server over real HTTPS with node's https client: routing, the AdmissionReview handling of
// controller-runtime's http.go / validator_custom.go / defaulter_custom.go, certificate reload and StartedChecker.
import https from 'node:https';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyPatch, type Operation } from 'fast-json-patch';
import { generateCA, signCertificate, type KeyPair } from '@capi/certs';
import type { KubeObject } from '@capi/apimachinery';
import { fieldError, invalidError } from '../admission/field-errors';
import type { CustomDefaulter, CustomValidator, WebhookRegistration } from '../admission/types';
import type { AdmissionReview } from './review';
import { WebhookServer } from './server';

jest.setTimeout(30_000);

async function servingPair(): Promise<{ ca: KeyPair; pair: KeyPair }> {
  const ca = await generateCA('webhook-test-ca');
  const pair = await signCertificate(ca, {
    commonName: 'webhook',
    usage: 'server',
    dnsNames: ['localhost'],
    ipAddresses: ['127.0.0.1'],
  });
  return { ca, pair };
}

function post(
  port: number,
  ca: string,
  path: string,
  body: string,
  headers: Record<string, string> = { 'content-type': 'application/json' },
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port, path, method: 'POST', ca, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

type Obj = KubeObject & { spec?: Record<string, unknown> };
const widget = (spec: Record<string, unknown>): Obj => ({
  apiVersion: 'example.test/v1',
  kind: 'Widget',
  metadata: { name: 'w', namespace: 'ns' },
  spec,
});

const calls: string[] = [];
const validator: CustomValidator<Obj> = {
  validateCreate(obj) {
    calls.push(`create:${obj.spec?.size}`);
    if (obj.spec?.size === 'bad')
      throw invalidError('example.test', 'Widget', obj.metadata.name ?? '', [
        fieldError.invalid('spec.size', 'bad', 'must be small or large'),
      ]);
    if (obj.spec?.size === 'error') throw new Error('cannot reach the cluster');
    if (obj.spec?.size === 'bug') (obj.spec as unknown as { x: { y: number } }).x.y = 1;
    return obj.spec?.size === 'large' ? ['large widgets are deprecated'] : undefined;
  },
  validateUpdate(oldObj, newObj) {
    calls.push(`update:${oldObj.spec?.size}->${newObj.spec?.size}`);
  },
  validateDelete(obj) {
    calls.push(`delete:${obj.spec?.size}`);
  },
};
const defaulter: CustomDefaulter<Obj> = {
  default(obj) {
    calls.push('default');
    obj.spec ??= {};
    obj.spec.size ??= 'small';
    (obj.metadata.labels ??= {})['example.test/defaulted'] = 'true';
  },
};
const registration: WebhookRegistration = {
  group: 'example.test',
  version: 'v1',
  kind: 'Widget',
  resource: 'widgets',
  defaulter: defaulter as CustomDefaulter,
  validator: validator as CustomValidator,
};
const VALIDATE = '/validate-example-test-v1-widget';
const MUTATE = '/mutate-example-test-v1-widget';

const review = (request: Record<string, unknown>): string =>
  JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'u-1', ...request } });

describe('WebhookServer', () => {
  let dir: string;
  let ca: KeyPair;
  let server: WebhookServer;
  let port: number;
  const send = async (path: string, body: string, headers?: Record<string, string>) => {
    const r = await post(port, ca.cert, path, body, headers);
    expect(r.status).toBe(200);
    return JSON.parse(r.text) as AdmissionReview;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'webhook-certs-'));
    const certs = await servingPair();
    ca = certs.ca;
    writeFileSync(join(dir, 'tls.crt'), certs.pair.cert);
    writeFileSync(join(dir, 'tls.key'), certs.pair.key);
    server = new WebhookServer({
      registrations: [registration],
      port: 0,
      host: '127.0.0.1',
      certDir: dir,
      certWatchIntervalMs: 50,
    });
    await server.start();
    port = server.port!;
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => (calls.length = 0));

  it('serves the mutate and validate paths of each registration (generateMutatePath / generateValidatePath)', () => {
    expect(server.paths().sort()).toEqual([MUTATE, VALIDATE]);
  });

  it('CREATE: a validator AdmissionError is the denial, its Status as response.status; the uid is echoed', async () => {
    const out = await send(VALIDATE, review({ operation: 'CREATE', object: widget({ size: 'bad' }) }));
    expect(out.apiVersion).toBe('admission.k8s.io/v1');
    expect(out.kind).toBe('AdmissionReview');
    expect(out.response).toEqual({
      uid: 'u-1',
      allowed: false,
      status: {
        metadata: {},
        apiVersion: 'v1',
        kind: 'Status',
        status: 'Failure',
        code: 422,
        reason: 'Invalid',
        message: 'Widget.example.test "w" is invalid: spec.size: Invalid value: "bad": must be small or large',
        details: {
          name: 'w',
          group: 'example.test',
          kind: 'Widget',
          causes: [
            {
              reason: 'FieldValueInvalid',
              message: 'Invalid value: "bad": must be small or large',
              field: 'spec.size',
            },
          ],
        },
      },
    });
  });

  it('CREATE allowed: code 200 and the warnings', async () => {
    const out = await send(VALIDATE, review({ operation: 'CREATE', object: widget({ size: 'large' }) }));
    expect(out.response).toEqual({
      uid: 'u-1',
      allowed: true,
      status: { metadata: {}, code: 200 },
      warnings: ['large widgets are deprecated'],
    });
  });

  it('UPDATE gets oldObject and object; DELETE gets oldObject; CONNECT is not validated', async () => {
    await send(
      VALIDATE,
      review({ operation: 'UPDATE', object: widget({ size: 'b' }), oldObject: widget({ size: 'a' }) }),
    );
    await send(VALIDATE, review({ operation: 'DELETE', oldObject: widget({ size: 'gone' }) }));
    const connect = await send(VALIDATE, review({ operation: 'CONNECT' }));
    expect(connect.response?.allowed).toBe(true);
    expect(calls).toEqual(['update:a->b', 'delete:gone']);
  });

  it('an unknown operation and a missing object are 400s (Errored(http.StatusBadRequest))', async () => {
    const unknown = await send(VALIDATE, review({ operation: 'PATCH', object: widget({}) }));
    expect(unknown.response).toMatchObject({
      allowed: false,
      status: { code: 400, message: 'unknown operation "PATCH"' },
    });
    const noOld = await send(VALIDATE, review({ operation: 'UPDATE', object: widget({}) }));
    expect(noOld.response).toMatchObject({
      allowed: false,
      status: { code: 400, message: 'there is no content to decode' },
    });
  });

  it('another error is Denied (403 Forbidden, its message); a programming error is a recovered panic (500)', async () => {
    const err = await send(VALIDATE, review({ operation: 'CREATE', object: widget({ size: 'error' }) }));
    expect(err.response).toEqual({
      uid: 'u-1',
      allowed: false,
      status: { metadata: {}, code: 403, reason: 'Forbidden', message: 'cannot reach the cluster' },
    });
    const bug = await send(VALIDATE, review({ operation: 'CREATE', object: widget({ size: 'bug' }) }));
    expect(bug.response).toMatchObject({ uid: 'u-1', allowed: false, status: { code: 500 } });
    expect(bug.response?.status?.message).toMatch(/^panic: .+ \[recovered\]$/);
  });

  it('mutate: a base64 JSONPatch from the request object to the defaulted copy', async () => {
    const original = widget({});
    const out = await send(MUTATE, review({ operation: 'CREATE', object: original }));
    expect(out.response).toMatchObject({ uid: 'u-1', allowed: true, patchType: 'JSONPatch', status: { code: 200 } });
    const ops = JSON.parse(Buffer.from(out.response!.patch!, 'base64').toString()) as Operation[];
    const patched = applyPatch(structuredClone(original), ops).newDocument;
    expect(patched).toEqual({
      ...original,
      metadata: { ...original.metadata, labels: { 'example.test/defaulted': 'true' } },
      spec: { size: 'small' },
    });
  });

  it('mutate: nothing to default is allowed without a patch; DELETE is skipped without calling the defaulter', async () => {
    const done = widget({ size: 'large' });
    done.metadata.labels = { 'example.test/defaulted': 'true' };
    const same = await send(MUTATE, review({ operation: 'UPDATE', object: done, oldObject: done }));
    expect(same.response).toEqual({ uid: 'u-1', allowed: true, status: { metadata: {}, code: 200 } });
    calls.length = 0;
    const del = await send(MUTATE, review({ operation: 'DELETE', oldObject: done }));
    expect(del.response).toEqual({ uid: 'u-1', allowed: true, status: { metadata: {}, code: 200 } });
    expect(calls).toEqual([]);
  });

  it('a v1beta1 review is answered as v1beta1 (writeResponseTyped)', async () => {
    const body = JSON.stringify({
      apiVersion: 'admission.k8s.io/v1beta1',
      kind: 'AdmissionReview',
      request: { uid: 'u-2', operation: 'CREATE', object: widget({ size: 'small' }) },
    });
    const out = await send(VALIDATE, body);
    expect([out.apiVersion, out.response?.uid, out.response?.allowed]).toEqual([
      'admission.k8s.io/v1beta1',
      'u-2',
      true,
    ]);
  });

  it('bad requests are answered 400 in the review as http.go does: empty body, content type, undecodable body', async () => {
    const empty = await send(VALIDATE, '');
    expect(empty.response).toMatchObject({ allowed: false, status: { code: 400, message: 'request body is empty' } });
    const text = await send(VALIDATE, review({ operation: 'CREATE' }), { 'content-type': 'text/plain' });
    expect(text.response?.status).toMatchObject({
      code: 400,
      message: 'contentType=text/plain, expected application/json',
    });
    const garbage = await send(VALIDATE, '{not json');
    expect(garbage.response).toMatchObject({ uid: '', allowed: false, status: { code: 400 } });
    const version = await send(VALIDATE, JSON.stringify({ apiVersion: 'v1', kind: 'AdmissionReview', request: {} }));
    expect(version.response?.status?.code).toBe(400);
    expect(calls).toEqual([]);
  });

  it('an unregistered path is 404', async () => {
    const r = await post(port, ca.cert, '/validate-nothing', review({ operation: 'CREATE' }));
    expect([r.status, r.text]).toEqual([404, '404 page not found\n']);
  });

  it('reloads a rotated certificate without a restart (certwatcher)', async () => {
    const next = await servingPair();
    // Before: the new CA does not verify the served certificate.
    await expect(post(port, next.ca.cert, VALIDATE, '')).rejects.toThrow();
    writeFileSync(join(dir, 'tls.key'), next.pair.key);
    writeFileSync(join(dir, 'tls.crt'), next.pair.cert);
    const deadline = Date.now() + 5_000;
    for (;;) {
      try {
        const r = await post(port, next.ca.cert, VALIDATE, review({ operation: 'CONNECT' }));
        expect(r.status).toBe(200);
        break;
      } catch (e) {
        if (Date.now() > deadline) throw e;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    ca = next.ca;
  });
});

describe('WebhookServer start, StartedChecker and registration errors', () => {
  it('StartedChecker fails before start and after stop, passes while serving', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webhook-certs-'));
    try {
      const { pair } = await servingPair();
      writeFileSync(join(dir, 'cert.pem'), pair.cert);
      writeFileSync(join(dir, 'key.pem'), pair.key);
      const server = new WebhookServer({
        registrations: [registration],
        port: 0,
        host: '127.0.0.1',
        certDir: dir,
        certName: 'cert.pem',
        keyName: 'key.pem',
      });
      const check = server.startedChecker();
      await expect(check()).rejects.toThrow('webhook server has not been started yet');
      await server.start();
      await expect(check()).resolves.toBeUndefined();
      await server.stop();
      await expect(check()).rejects.toThrow('webhook server has not been started yet');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a missing certificate fails start, naming the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webhook-certs-'));
    try {
      const server = new WebhookServer({ registrations: [registration], port: 0, certDir: dir });
      await expect(server.start()).rejects.toThrow(join(dir, 'tls.crt'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('two webhooks on one path are refused (server.go Register)', () => {
    expect(() => new WebhookServer({ registrations: [registration, registration] })).toThrow(
      "can't register duplicate path: /mutate-example-test-v1-widget",
    );
  });
});
