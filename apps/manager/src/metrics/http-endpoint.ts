import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A started endpoint server; `address` is "host:port" with the real port (useful when binding port 0). */
export interface Endpoint {
  address: string;
  port: number;
  close(): Promise<void>;
}

/** Splits a validated bind address (":8080", "127.0.0.1:0", "[::1]:9440") into host and port; ":port" binds all interfaces. */
export function splitBindAddress(addr: string): { host?: string; port: number } {
  const i = addr.lastIndexOf(':');
  const host = addr.slice(0, i).replace(/^\[(.*)\]$/, '$1');
  return { host: host === '' ? undefined : host, port: Number(addr.slice(i + 1)) };
}

/** Listens on a bind address; resolves once listening, rejects on EADDRINUSE and friends with the address in the message. */
export async function listen(bindAddress: string, handler: RequestListener): Promise<Endpoint> {
  const { host, port } = splitBindAddress(bindAddress);
  const server: Server = createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e) => reject(new Error(`cannot listen on ${bindAddress}: ${(e as Error).message}`)));
    server.listen(port, host, () => resolve());
  });
  const a = server.address() as AddressInfo;
  return {
    address: `${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}`,
    port: a.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function reply(res: ServerResponse, status: number, body: string, contentType = 'text/plain; charset=utf-8'): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

export function pathOf(req: IncomingMessage): { path: string; query: URLSearchParams } {
  const u = new URL(req.url ?? '/', 'http://localhost');
  return { path: u.pathname, query: u.searchParams };
}
