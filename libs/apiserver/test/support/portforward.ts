// Port-forward test helpers: a TCP echo server standing behind a backend, and a raw v4.channel.k8s.io client that
// records what arrives on each channel.
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import type { Conn } from './test-client';

export interface EchoServer {
  port: number;
  /** Sockets the echo server accepted, open or closed. */
  sockets: Socket[];
  close(): Promise<void>;
}

/** A TCP server echoing every byte back on the same connection. */
export async function startEchoServer(): Promise<EchoServer> {
  const sockets: Socket[] = [];
  const server: Server = createServer((s) => {
    sockets.push(s);
    s.on('error', () => s.destroy());
    s.pipe(s);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    sockets,
    close: () =>
      new Promise<void>((resolve) => {
        sockets.forEach((s) => s.destroy());
        server.close(() => resolve());
      }),
  };
}

export interface ForwardClient {
  ws: WebSocket;
  protocol: string;
  /** Payload bytes per channel, in order (the port prefix included). */
  received: Map<number, Buffer[]>;
  /** Concatenated payloads of a channel without its 2-byte port prefix. */
  data(channel: number): Buffer;
  send(channel: number, data: Buffer): void;
  closed: Promise<{ code: number }>;
  /** Resolves once `channel` (prefix excluded) holds at least `bytes` bytes. */
  waitFor(channel: number, bytes: number, timeoutMs?: number): Promise<Buffer>;
}

export function forwardPath(ns: string, pod: string, ports: string): string {
  return `/api/v1/namespaces/${ns}/pods/${pod}/portforward?ports=${ports}`;
}

/** The answer to an upgrade the server refused: its status code and body. */
export class Refused extends Error {
  constructor(
    readonly code: number,
    readonly body: string,
  ) {
    super(`upgrade refused: ${code} ${body}`);
  }
}

/** Opens a port-forward WebSocket (binary frames unless the base64 protocol is asked for). */
export function openForward(
  conn: Conn,
  path: string,
  opts: { protocols?: string[]; token?: string | null; headers?: Record<string, string> } = {},
): Promise<ForwardClient> {
  const url = conn.url.replace(/^http/, 'ws') + path;
  const token = opts.token === undefined ? conn.token : opts.token;
  // Protocol names ws refuses to send (kubectl's "SPDY/3.1+portforward.k8s.io") go as a raw header.
  const protocols = opts.protocols ?? ['v4.channel.k8s.io'];
  const raw = protocols.some((p) => !/^[\w.-]+$/.test(p));
  const ws = new WebSocket(url, raw ? [] : protocols, {
    ca: conn.caData ? Buffer.from(conn.caData, 'base64') : undefined,
    headers: {
      ...(token !== null ? { Authorization: `Bearer ${token}` } : {}),
      ...(raw ? { 'Sec-WebSocket-Protocol': protocols.join(', ') } : {}),
      ...opts.headers,
    },
  });
  const received = new Map<number, Buffer[]>();
  const waiters: (() => void)[] = [];
  const closed = new Promise<{ code: number }>((resolve) => ws.on('close', (code) => resolve({ code })));
  const base64 = () => ws.protocol === 'v4.base64.channel.k8s.io';
  ws.on('message', (raw: Buffer) => {
    const [channel, payload] = base64()
      ? [raw.toString().charCodeAt(0) - 48, Buffer.from(raw.toString().slice(1), 'base64')]
      : [raw[0], raw.subarray(1)];
    received.set(channel, [...(received.get(channel) ?? []), Buffer.from(payload)]);
    waiters.splice(0).forEach((w) => w());
  });
  const data = (channel: number) => Buffer.concat(received.get(channel) ?? []).subarray(2);
  const client: ForwardClient = {
    ws,
    protocol: '',
    received,
    data,
    send: (channel, payload) =>
      ws.send(
        base64()
          ? String.fromCharCode(48 + channel) + payload.toString('base64')
          : Buffer.concat([Buffer.from([channel]), payload]),
      ),
    closed,
    waitFor: (channel, bytes, timeoutMs = 20_000) =>
      new Promise<Buffer>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`channel ${channel}: ${data(channel).length} of ${bytes} bytes`)),
          timeoutMs,
        );
        const check = () => {
          if (data(channel).length >= bytes) {
            clearTimeout(timer);
            resolve(data(channel));
          } else waiters.push(check);
        };
        check();
      }),
  };
  return new Promise((resolve, reject) => {
    ws.on('open', () => resolve({ ...client, protocol: ws.protocol }));
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c));
      res.on('end', () => reject(new Refused(res.statusCode ?? 0, body)));
    });
    ws.on('error', reject);
  });
}
