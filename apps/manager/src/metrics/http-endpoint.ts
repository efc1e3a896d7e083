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

/** What an endpoint serves and the flag that sets its address, for the error when it cannot listen. */
export interface EndpointFlag {
  what: string;
  flag: string;
}

const LISTEN_PROBLEMS: Record<string, string> = {
  EADDRINUSE: 'address already in use (another process, e.g. a second manager, listens there)',
  EACCES: 'permission denied (ports below 1024 need privileges)',
  EADDRNOTAVAIL: 'address not available on this machine',
};

/** An endpoint could not listen; the message names the flag to change. */
export class ListenError extends Error {
  constructor(
    readonly bindAddress: string,
    readonly endpoint: EndpointFlag,
    readonly code: string | undefined,
    cause: Error,
  ) {
    const problem = (code && LISTEN_PROBLEMS[code]) ?? cause.message;
    super(
      `cannot serve ${endpoint.what} on ${bindAddress}: ${problem}${code ? ` [${code}]` : ''}; choose another address with ${endpoint.flag}=host:port (0 disables it)`,
    );
    this.name = 'ListenError';
  }
}

/** Listens on a bind address; resolves once listening, rejects with a ListenError naming the flag (EADDRINUSE and friends). */
export async function listen(
  bindAddress: string,
  handler: RequestListener,
  endpoint: EndpointFlag = { what: 'HTTP', flag: 'its bind address flag' },
): Promise<Endpoint> {
  const { host, port } = splitBindAddress(bindAddress);
  const server: Server = createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => reject(new ListenError(bindAddress, endpoint, e.code, e)));
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

export function reply(
  res: ServerResponse,
  status: number,
  body: string,
  contentType = 'text/plain; charset=utf-8',
): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

export function pathOf(req: IncomingMessage): { path: string; query: URLSearchParams } {
  const u = new URL(req.url ?? '/', 'http://localhost');
  return { path: u.pathname, query: u.searchParams };
}
