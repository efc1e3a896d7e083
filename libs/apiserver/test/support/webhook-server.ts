// A small HTTPS admission webhook for the admission envtests: each path is one behaviour; every AdmissionReview it
// receives is kept so cases can check what the API server sent.
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { generateServingCerts } from '../../src/server/tls';

export interface Review {
  path: string;
  request: Record<string, any>;
}

type Answer = (request: Record<string, any>) => Record<string, unknown> | Promise<Record<string, unknown>>;

export interface WebhookServer {
  url(path: string): string;
  /** base64 PEM of the CA that signed the serving certificate (clientConfig.caBundle). */
  caBundle: string;
  reviews: Review[];
  close(): Promise<void>;
}

const patch = (ops: object[]) => ({
  patchType: 'JSONPatch',
  patch: Buffer.from(JSON.stringify(ops)).toString('base64'),
});

export const ANSWERS: Record<string, Answer> = {
  '/allow': () => ({ allowed: true }),
  '/warn': () => ({ allowed: true, warnings: ['test webhook: looked at it'] }),
  '/deny-invalid': (r) => ({
    allowed: false,
    status: {
      code: 422,
      reason: 'Invalid',
      message: `Widget.example.com "${r.name}" is invalid: spec.size: Invalid value: 5: must be at most 3`,
      details: {
        name: r.name,
        group: 'example.com',
        kind: 'Widget',
        causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: 5: must be at most 3', field: 'spec.size' }],
      },
    },
  }),
  '/deny-plain': () => ({ allowed: false, status: { message: 'keep me' } }),
  '/mutate': (r) => ({
    allowed: true,
    ...patch([
      { op: 'add', path: '/spec/color', value: 'green' },
      r.object.metadata.annotations
        ? { op: 'add', path: '/metadata/annotations/mutated-by', value: 'test-webhook' }
        : { op: 'add', path: '/metadata/annotations', value: { 'mutated-by': 'test-webhook' } },
    ]),
  }),
  '/slow': () => new Promise((resolve) => setTimeout(() => resolve({ allowed: true }), 3000)),
};

export async function startWebhookServer(): Promise<WebhookServer> {
  const certs = await generateServingCerts('127.0.0.1');
  const reviews: Review[] = [];
  const server: Server = createServer({ cert: certs.cert, key: certs.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const path = new URL(req.url ?? '/', 'https://x').pathname;
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      reviews.push({ path, request: review.request });
      const answer = await (ANSWERS[path] ?? ANSWERS['/allow'])(review.request);
      const body = JSON.stringify({
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        response: { uid: review.request.uid, ...answer },
      });
      if (res.destroyed) return;
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path) => `https://127.0.0.1:${port}${path}`,
    caBundle: Buffer.from(certs.caCert).toString('base64'),
    reviews,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
