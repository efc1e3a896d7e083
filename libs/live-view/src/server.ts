// The live view's HTTP server: the page's built assets, a JSON API and a Server-Sent Events stream that sends the
// whole view again after each burst of changes (the view of a few clusters is small; a full state per event keeps
// the browser side a plain render of the last message).
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';
import type { LiveViewState } from './view';

export interface LiveViewSource {
  /** The current view. */
  state(): LiveViewState;
  /** Calls `listener` after each burst of changes; returns the unsubscribe function. */
  onChange(listener: () => void): () => void;
}

export interface LiveViewServer {
  /** "host:port" with the port actually bound. */
  address: string;
  port: number;
  close(): Promise<void>;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
};

function send(res: ServerResponse, status: number, body: string, type = 'text/plain; charset=utf-8'): void {
  res.writeHead(status, {
    'content-type': type,
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
  });
  res.end(body);
}

const sendJson = (res: ServerResponse, status: number, body: unknown) =>
  send(res, status, JSON.stringify(body), 'application/json');

/** A Kubernetes-style Status for API errors. */
const status = (code: number, reason: string, message: string) => ({
  kind: 'Status',
  apiVersion: 'v1',
  status: 'Failure',
  message,
  reason,
  code,
});

export function startLiveViewServer(opts: {
  host: string;
  port: number;
  source: LiveViewSource;
  /** Folder of the built page (index.html and its assets). */
  assetsDir: string;
}): Promise<LiveViewServer> {
  const streams = new Set<ServerResponse>();
  const unsubscribe = opts.source.onChange(() => {
    if (streams.size === 0) return;
    const data = `event: state\ndata: ${JSON.stringify(opts.source.state())}\n\n`;
    for (const res of streams) res.write(data);
  });

  const api = (req: IncomingMessage, res: ServerResponse, path: string): void => {
    const state = opts.source.state();
    if (path === '/api/state') return sendJson(res, 200, state);
    if (path === '/api/clusters')
      return sendJson(
        res,
        200,
        state.clusters.map(({ namespace, name, phase }) => ({ namespace, name, phase })),
      );
    if (path === '/api/series') return sendJson(res, 200, state.series);
    const m = /^\/api\/clusters\/([^/]+)\/([^/]+)$/.exec(path);
    if (m) {
      const [namespace, name] = [decodeURIComponent(m[1]), decodeURIComponent(m[2])];
      const cluster = state.clusters.find((c) => c.namespace === namespace && c.name === name);
      return cluster
        ? sendJson(res, 200, cluster)
        : sendJson(res, 404, status(404, 'NotFound', `clusters "${name}" not found in namespace "${namespace}"`));
    }
    if (path === '/api/events') {
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-store',
        connection: 'keep-alive',
      });
      res.write(`event: state\ndata: ${JSON.stringify(state)}\n\n`);
      streams.add(res);
      req.on('close', () => streams.delete(res));
      return;
    }
    sendJson(res, 404, status(404, 'NotFound', `no API path ${path}`));
  };

  const asset = (res: ServerResponse, path: string): void => {
    if (!existsSync(join(opts.assetsDir, 'index.html')))
      return send(
        res,
        503,
        `the live view's page is not built (no ${join(opts.assetsDir, 'index.html')}); build it with: npx nx run live-view:build-web\n`,
      );
    const rel = normalize(path === '/' ? '/index.html' : path).replace(/^([/\\])+/, '');
    const file = join(opts.assetsDir, rel);
    if (!file.startsWith(opts.assetsDir + sep) || !existsSync(file) || !statSync(file).isFile())
      return send(res, 404, `not found: ${path}\n`);
    res.writeHead(200, { 'content-type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream' });
    createReadStream(file).pipe(res);
  };

  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return sendJson(
        res,
        405,
        status(405, 'MethodNotAllowed', `${req.method} is not supported; the view is read-only`),
      );
    if (path.startsWith('/api/')) return api(req, res, path);
    asset(res, path);
  });

  return new Promise((resolve, reject) => {
    server.once('error', (e) => {
      unsubscribe();
      reject(e);
    });
    server.listen(opts.port, opts.host, () => {
      const a = server.address() as AddressInfo;
      resolve({
        address: `${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}`,
        port: a.port,
        close: () =>
          new Promise<void>((done) => {
            unsubscribe();
            for (const res of streams) res.end();
            streams.clear();
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
