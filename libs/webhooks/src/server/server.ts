// The webhook HTTPS server, as controller-runtime's pkg/webhook/server.go (DefaultServer: port 9443, certificate and
// key from CertDir/CertName/KeyName reloaded by the certwatcher, one path per webhook) serving the admission handlers
// of review.ts with the request checks of pkg/webhook/admission/http.go.
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { webhookPath, type WebhookRegistration } from '../admission/types';
import { CertWatcher } from './cert-watcher';
import {
  complete,
  defaultingHandler,
  errored,
  validatingHandler,
  type AdmissionHandler,
  type AdmissionRequest,
  type AdmissionReview,
  type HandlerResponse,
} from './review';

/** server.go DefaultPort, and the defaults of Options.CertDir/CertName/KeyName. */
export const DEFAULT_WEBHOOK_PORT = 9443;
export const DEFAULT_WEBHOOK_CERT_DIR = '/tmp/k8s-webhook-server/serving-certs/';
export const DEFAULT_WEBHOOK_CERT_NAME = 'tls.crt';
export const DEFAULT_WEBHOOK_KEY_NAME = 'tls.key';

/** http.go maxRequestSize: two objects of at most 3 MB each and the rest of the review. */
export const MAX_REQUEST_SIZE = 7 * 1024 * 1024;

const ADMISSION_VERSIONS = ['admission.k8s.io/v1', 'admission.k8s.io/v1beta1'];

export interface WebhookServerLogger {
  info(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export interface WebhookServerOptions {
  registrations: readonly WebhookRegistration[];
  /** Default 9443; 0 picks a free port (see `port` once started). */
  port?: number;
  /** Address to listen on; default all interfaces. */
  host?: string;
  certDir?: string;
  certName?: string;
  keyName?: string;
  /** How often the certificate files are re-checked (default certwatcher's 10 s). */
  certWatchIntervalMs?: number;
  logger?: WebhookServerLogger;
}

/** The mutate and validate paths of `registrations`, each with its handler; a path served twice is an error. */
export function webhookRoutes(registrations: readonly WebhookRegistration[]): Map<string, AdmissionHandler> {
  const routes = new Map<string, AdmissionHandler>();
  const add = (path: string, handler: AdmissionHandler) => {
    // server.go Register panics on a duplicate path.
    if (routes.has(path)) throw new Error(`webhook server: can't register duplicate path: ${path}`);
    routes.set(path, handler);
  };
  for (const r of registrations) {
    if (r.defaulter)
      add(r.mutatePath ?? webhookPath('mutate', r.group, r.version, r.kind), defaultingHandler(r.defaulter));
    if (r.validator)
      add(r.validatePath ?? webhookPath('validate', r.group, r.version, r.kind), validatingHandler(r.validator));
  }
  return routes;
}

export class WebhookServer {
  private readonly routes: Map<string, AdmissionHandler>;
  private server?: https.Server;
  private watcher?: CertWatcher;
  private started = false;
  private boundPort?: number;

  constructor(private readonly opts: WebhookServerOptions) {
    this.routes = webhookRoutes(opts.registrations);
  }

  get certFile(): string {
    return join(this.opts.certDir ?? DEFAULT_WEBHOOK_CERT_DIR, this.opts.certName ?? DEFAULT_WEBHOOK_CERT_NAME);
  }

  get keyFile(): string {
    return join(this.opts.certDir ?? DEFAULT_WEBHOOK_CERT_DIR, this.opts.keyName ?? DEFAULT_WEBHOOK_KEY_NAME);
  }

  /** The paths served, e.g. `/validate-cluster-x-k8s-io-v1beta2-machine`. */
  paths(): string[] {
    return [...this.routes.keys()];
  }

  /** The port listened on (the chosen one with port 0); undefined before start. */
  get port(): number | undefined {
    return this.boundPort;
  }

  /** Reads the certificate (a missing or bad one fails here, naming the files), listens, and watches the files. */
  async start(): Promise<void> {
    if (this.server) return;
    const watcher = new CertWatcher(this.certFile, this.keyFile, {
      intervalMs: this.opts.certWatchIntervalMs,
      onChange: (pair) => {
        this.server?.setSecureContext(pair);
        this.opts.logger?.info('webhook serving certificate reloaded', { cert: this.certFile });
      },
      onError: (e) => this.opts.logger?.error('webhook serving certificate not reloaded', { error: e.message }),
    });
    const server = https.createServer(
      { ...watcher.current, minVersion: 'TLSv1.2' },
      (req, res) => void this.serve(req, res),
    );
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.opts.port ?? DEFAULT_WEBHOOK_PORT, this.opts.host || undefined, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    this.watcher = watcher;
    watcher.start();
    this.boundPort = (server.address() as AddressInfo).port;
    this.started = true;
    this.opts.logger?.info('serving webhook server', { port: this.boundPort, paths: this.paths() });
  }

  async stop(): Promise<void> {
    this.watcher?.stop();
    const server = this.server;
    this.server = undefined;
    this.started = false;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /**
   * server.go StartedChecker: healthy once started and a TLS connection to the port succeeds (the certificate is not
   * verified: this checks the server is up, not who it claims to be).
   */
  startedChecker(): () => Promise<void> {
    return async () => {
      if (!this.started || this.boundPort === undefined) throw new Error('webhook server has not been started yet');
      const host =
        !this.opts.host || this.opts.host === '0.0.0.0' || this.opts.host === '::' ? 'localhost' : this.opts.host;
      await new Promise<void>((resolve, reject) => {
        const socket = connect({ host, port: this.boundPort, rejectUnauthorized: false, timeout: 10_000 }, () => {
          socket.end();
          resolve();
        });
        socket.once('timeout', () => socket.destroy(new Error('timeout')));
        socket.once('error', (e) => reject(new Error(`webhook server is not reachable: ${e.message}`)));
      });
    };
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'https://localhost').pathname;
    const handler = this.routes.get(path);
    if (!handler) {
      // Go's ServeMux for an unregistered path.
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('404 page not found\n');
      return;
    }
    const body = await readBody(req);
    if ('error' in body) return write(res, { response: complete(body.error, '') });
    // http.go accepts exactly application/json.
    const contentType = req.headers['content-type'] ?? '';
    if (contentType !== 'application/json')
      return write(res, {
        response: complete(errored(400, `contentType=${contentType}, expected application/json`), ''),
      });
    let review: AdmissionReview;
    try {
      review = JSON.parse(body.text) as AdmissionReview;
      if (typeof review !== 'object' || review === null || Array.isArray(review))
        throw new Error('an AdmissionReview must be a JSON object');
      if (review.apiVersion !== undefined && !ADMISSION_VERSIONS.includes(review.apiVersion))
        throw new Error(`no kind "AdmissionReview" is registered for version "${review.apiVersion}"`);
    } catch (e) {
      return write(res, { response: complete(errored(400, (e as Error).message), '') });
    }
    const request: AdmissionRequest = review.request ?? { uid: '', operation: '' };
    let answer: HandlerResponse;
    try {
      answer = await handler(request);
    } catch (e) {
      answer = errored(500, `panic: ${(e as Error)?.message ?? String(e)} [recovered]`);
    }
    if (!answer.allowed)
      this.opts.logger?.info('admission denied', {
        path,
        uid: request.uid,
        code: answer.status?.code,
        message: answer.status?.message,
      });
    // Typed with the request's AdmissionReview version (http.go writeResponseTyped; v1 when it gave none).
    write(res, {
      apiVersion: review.apiVersion ?? 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      response: complete(answer, request.uid ?? ''),
    });
  }
}

async function readBody(req: IncomingMessage): Promise<{ text: string } | { error: HandlerResponse }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_REQUEST_SIZE)
      return { error: errored(413, `request entity is too large; limit is ${MAX_REQUEST_SIZE} bytes`) };
    chunks.push(chunk);
  }
  if (size === 0) return { error: errored(400, 'request body is empty') };
  return { text: Buffer.concat(chunks).toString('utf8') };
}

/** Go's json.Encoder output with net/http's status 200: the review's outcome is in `response.status`. */
function write(res: ServerResponse, review: AdmissionReview): void {
  const text = JSON.stringify(review) + '\n';
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
