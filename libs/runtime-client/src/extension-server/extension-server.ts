// HTTPS server for writing Runtime Extensions in a few lines: serves discovery and the handlers with the upstream
// paths and JSON envelopes (like upstream exp/runtime/server).
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';
import {
  HOOKS_API_VERSION,
  type CommonResponse,
  type DiscoveryResponse,
  type FailurePolicy,
  type HookName,
  type HookRequest,
  type HookResponse,
} from '@capi/api';
import { gvhToPath, hookDescriptor } from '../catalog';

type HandledHook = Exclude<HookName, 'Discovery'>;

export interface ExtensionHandlerDefinition<H extends HandledHook = HandledHook> {
  hook: H;
  name: string;
  timeoutSeconds?: number;
  failurePolicy?: FailurePolicy;
  /** Return the response body fields; apiVersion/kind and status (default Success) are filled in. Throwing -> Failure. */
  handle: (request: HookRequest<H>) => Promise<Partial<HookResponse<H>>> | Partial<HookResponse<H>>;
}

export interface TlsMaterial {
  cert: string;
  key: string;
  /** PEM of the CA that signed `cert`; defaults to `cert` (self-signed). */
  ca?: string;
}

/** One handler of any hook; `hook` discriminates, so `handle` gets the right request type. */
export type AnyExtensionHandler = { [H in HandledHook]: ExtensionHandlerDefinition<H> }[HandledHook];

export interface ExtensionServerOptions {
  handlers: AnyExtensionHandler[];
  tls: TlsMaterial | 'generate';
  host?: string;
  port?: number;
  /** Path prefix, e.g. "/prefix" (then ExtensionConfig url must carry it too). */
  pathPrefix?: string;
  /**
   * Keep every request in `requests` (default: true, for tests). A long-running server (the reference updater) passes
   * false: each hook request carries whole Machines, so keeping them grows the heap with every call.
   */
  recordRequests?: boolean;
}

export interface ExtensionServer {
  /** Base URL to put in ExtensionConfig spec.clientConfig.url. */
  url: string;
  /** base64 PEM for spec.clientConfig.caBundle. */
  caBundle: string;
  /** Paths the server received, in order (handy in tests); empty with `recordRequests: false`. */
  readonly requests: { path: string; search: string; body: unknown }[];
  close(): Promise<void>;
}

/** Self-signed certificate valid for localhost / 127.0.0.1 / ::1 (and extra DNS names). */
export async function generateServerTls(dnsNames: string[] = []): Promise<TlsMaterial> {
  const pems = await generate([{ name: 'commonName', value: 'runtime-extension' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', digitalSignature: true, keyCertSign: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          ...dnsNames.map((value) => ({ type: 2 as const, value })),
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}

const json = (res: import('node:http').ServerResponse, code: number, body: unknown) => {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
};

export async function createExtensionServer(opts: ExtensionServerOptions): Promise<ExtensionServer> {
  const tls = opts.tls === 'generate' ? await generateServerTls() : opts.tls;
  const prefix = (opts.pathPrefix ?? '').replace(/\/+$/, '');
  const routes = new Map<string, AnyExtensionHandler>();
  for (const h of opts.handlers) {
    const path = prefix + gvhToPath(hookDescriptor(h.hook).gvh, h.name);
    if (routes.has(path)) throw new Error(`duplicate handler ${h.hook}/${h.name}`);
    routes.set(path, h);
  }
  const discoveryPath = prefix + gvhToPath(hookDescriptor('Discovery').gvh);
  const discovery: DiscoveryResponse = {
    apiVersion: HOOKS_API_VERSION,
    kind: 'DiscoveryResponse',
    status: 'Success',
    handlers: opts.handlers.map((h) => ({
      name: h.name,
      requestHook: { apiVersion: HOOKS_API_VERSION, hook: h.hook },
      ...(h.timeoutSeconds !== undefined ? { timeoutSeconds: h.timeoutSeconds } : {}),
      ...(h.failurePolicy !== undefined ? { failurePolicy: h.failurePolicy } : {}),
    })),
  };
  const requests: ExtensionServer['requests'] = [];

  const server = https.createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
    const u = new URL(req.url ?? '/', 'https://localhost');
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: unknown;
      try {
        body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {};
      } catch (e) {
        json(res, 400, { message: `invalid JSON body: ${(e as Error).message}` });
        return;
      }
      if (opts.recordRequests !== false) requests.push({ path: u.pathname, search: u.search, body });
      if (req.method !== 'POST') return json(res, 405, { message: 'only POST is supported' });
      if (u.pathname === discoveryPath) return json(res, 200, discovery);
      const handler = routes.get(u.pathname);
      if (!handler) return json(res, 404, { message: `no handler for ${u.pathname}` });
      const kind = hookDescriptor(handler.hook).responseKind;
      Promise.resolve()
        .then(() => handler.handle(body as never))
        .then(
          (out) => ({ status: 'Success', ...out, apiVersion: HOOKS_API_VERSION, kind }) as CommonResponse,
          (e: unknown) => ({
            apiVersion: HOOKS_API_VERSION,
            kind,
            status: 'Failure',
            message: e instanceof Error ? e.message : String(e),
          }),
        )
        .then((out) => {
          if (
            hookDescriptor(handler.hook).retry &&
            (out as { retryAfterSeconds?: number }).retryAfterSeconds === undefined
          ) {
            (out as { retryAfterSeconds?: number }).retryAfterSeconds = 0;
          }
          if (!res.headersSent) json(res, 200, out);
        });
    });
  });
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `https://${urlHost}:${port}${prefix}`,
    caBundle: Buffer.from(tls.ca ?? tls.cert, 'utf8').toString('base64'),
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
