// The write path's steps around admission webhooks, over an in-memory Store and a real HTTPS webhook (on a port).
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { KubeObject } from '@capi/apimachinery';
import { Store } from '../src/storage';
import { Registry } from '../src/server/registry';
import { Resources } from '../src/server/resources';
import { StatusError } from '../src/server/status';
import { generateServingCerts } from '../src/server/tls';
import { WebhookAdmission, type AttemptOptions, type WriteRequest } from '../src/admission/admission';

let server: Server;
let url = '';
let caBundle = '';
let onReview: (request: any) => object = () => ({ allowed: true });
const received: any[] = [];

beforeAll(async () => {
  const certs = await generateServingCerts('127.0.0.1');
  caBundle = Buffer.from(certs.caCert).toString('base64');
  server = createServer({ cert: certs.cert, key: certs.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const { request } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      received.push(request);
      const response = { uid: request.uid, ...onReview(request) };
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
beforeEach(() => {
  received.length = 0;
  onReview = () => ({ allowed: true });
});

function setup() {
  const store = new Store({ path: ':memory:' });
  const registry = new Registry();
  const resources = new Resources(store, registry);
  resources.create(registry.lookup('', 'v1', 'namespaces')!, '', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'd' },
  });
  const admission = new WebhookAdmission(resources, registry);
  const cms = registry.lookup('', 'v1', 'configmaps')!;
  const validating = registry.lookup('admissionregistration.k8s.io', 'v1', 'validatingwebhookconfigurations')!;
  const configure = (webhooks: object[]) =>
    resources.create(validating, '', {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'c' },
      webhooks,
    });
  const req = (name: string): WriteRequest => ({
    info: cms,
    namespace: 'd',
    name,
    dryRun: false,
    options: {},
    warnings: [],
  });
  return { resources, admission, cms, configure, req };
}
const hook = (extra: object = {}) => ({
  name: 'v.example.com',
  clientConfig: { url, caBundle },
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
  rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
  ...extra,
});
const cm = (name: string, data: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name },
  data,
});

describe('WebhookAdmission.write', () => {
  it('with no webhook for the resource, the write runs once, without hooks', async () => {
    const { resources, admission, cms, configure, req } = setup();
    const attempts: AttemptOptions[] = [];
    const run = (name: string) =>
      admission.write(req(name), (o) => (attempts.push(o), resources.create(cms, 'd', cm(name), o)));
    await run('a');
    configure([hook({ rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['secrets'] }] })]);
    await run('b');
    expect(attempts).toEqual([
      { dryRun: false, warnings: [], probe: false },
      { dryRun: false, warnings: [], probe: false },
    ]);
    expect(received).toEqual([]);
  });

  it('an object changed while a webhook is called makes the steps start over, with the new old object', async () => {
    const { resources, admission, cms, configure, req } = setup();
    resources.create(cms, 'd', cm('x', { v: '0' }));
    configure([hook()]);
    let raced = false;
    onReview = () => {
      if (!raced) {
        raced = true;
        resources.update(cms, 'd', 'x', { ...cm('x', { v: 'concurrent' }) });
      }
      return { allowed: true };
    };
    const out = await admission.write(req('x'), (o) =>
      resources.patch(cms, 'd', 'x', 'merge', { data: { mine: 'yes' } }, o),
    );
    expect(out.data).toEqual({ v: 'concurrent', mine: 'yes' });
    expect(received.map((r) => r.oldObject.data.v)).toEqual(['0', 'concurrent']);
  });

  it('a clientConfig.service cannot be called here: the error names the webhook (failurePolicy Fail)', async () => {
    const { resources, admission, cms, configure, req } = setup();
    configure([hook({ clientConfig: { service: { namespace: 'capi-system', name: 'webhook-service' } } })]);
    const err = await admission.write(req('s'), (o) => resources.create(cms, 'd', cm('s'), o)).catch((e) => e);
    expect(err).toBeInstanceOf(StatusError);
    expect(err.code).toBe(500);
    expect(err.message).toBe(
      'Internal error occurred: failed calling webhook "v.example.com": could not get REST client: clientConfig.service (capi-system/webhook-service) cannot be resolved by the embedded API server; use clientConfig.url',
    );
  });

  it('configurations using matchConditions are refused (CEL is not evaluated here)', () => {
    const { configure } = setup();
    const err = (() => {
      try {
        configure([hook({ matchConditions: [{ name: 'c', expression: 'true' }] })]);
      } catch (e) {
        return e as StatusError;
      }
    })();
    expect(err?.code).toBe(422);
    expect(err?.message).toBe(
      'ValidatingWebhookConfiguration.admissionregistration.k8s.io "c" is invalid: webhooks[0].matchConditions: Forbidden: matchConditions (CEL) are not supported by the embedded API server',
    );
  });

  it('webhook configurations themselves are never sent to webhooks', async () => {
    const { resources, admission, configure } = setup();
    configure([hook({ rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }] })]);
    const info = resources['registry'].lookup('admissionregistration.k8s.io', 'v1', 'validatingwebhookconfigurations')!;
    await admission.write({ info, namespace: '', name: 'c', dryRun: false, options: {}, warnings: [] }, (o) =>
      resources.patch(info, '', 'c', 'merge', { metadata: { labels: { a: 'b' } } }, o),
    );
    expect(received).toEqual([]);
  });
});
