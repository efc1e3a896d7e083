// Raw HTTPS with the answer's bytes kept (protobuf bodies and watch streams), for the suites that read the wire format.
import * as https from 'node:https';
import { PROTOBUF_MEDIA_TYPE } from '../../src/protobuf';
import type { Conn } from './test-client';

export interface Answer {
  code: number;
  contentType: string;
  body: Buffer;
}

/** One request; a body is sent as protobuf unless headers say otherwise. */
export function binaryRequest(
  conn: Conn,
  method: string,
  path: string,
  body?: Buffer,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      new URL(path, conn.url),
      {
        method,
        ca: conn.caData ? Buffer.from(conn.caData, 'base64') : undefined,
        headers: {
          Authorization: `Bearer ${conn.token}`,
          ...(body ? { 'Content-Type': PROTOBUF_MEDIA_TYPE, 'Content-Length': String(body.length) } : {}),
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({
            code: res.statusCode ?? 0,
            contentType: String(res.headers['content-type']),
            body: Buffer.concat(chunks),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A watch whose bytes so far are data(); opened resolves once the response headers are in. */
export function openBinaryWatch(conn: Conn, path: string, accept: string) {
  let data = Buffer.alloc(0);
  let contentType = '';
  let req: ReturnType<typeof https.request> | undefined;
  const opened = new Promise<void>((resolve, reject) => {
    req = https.request(
      new URL(path, conn.url),
      { ca: Buffer.from(conn.caData!, 'base64'), headers: { Authorization: `Bearer ${conn.token}`, Accept: accept } },
      (res) => {
        contentType = String(res.headers['content-type']);
        res.on('data', (c: Buffer) => (data = Buffer.concat([data, c])));
        resolve();
      },
    );
    req.on('error', reject);
    req.end();
  });
  return { opened, data: () => data, contentType: () => contentType, stop: () => req?.destroy() };
}
