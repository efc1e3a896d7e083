// Raw HTTP(S) requests with full control over body bytes, headers and content type (clients would refuse bad input).
import * as http from 'node:http';
import * as https from 'node:https';

export interface Endpoint {
  url: string;
  token?: string;
  caData?: string;
}

export interface RawResponse {
  code: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

export interface RawRequestOptions {
  body?: string | Buffer;
  /** Omitted header when undefined. */
  contentType?: string;
  headers?: Record<string, string>;
  timeoutMs?: number;
  agent?: http.Agent;
}

export function rawRequest(
  ep: Endpoint,
  method: string,
  path: string,
  opts: RawRequestOptions = {},
): Promise<RawResponse> {
  const u = new URL(path, ep.url);
  const lib = u.protocol === 'https:' ? https : http;
  const body =
    opts.body === undefined ? undefined : Buffer.isBuffer(opts.body) ? opts.body : Buffer.from(opts.body, 'utf8');
  return new Promise((resolve, reject) => {
    const req = lib.request(
      u,
      {
        method,
        agent: opts.agent,
        ca: ep.caData ? Buffer.from(ep.caData, 'base64') : undefined,
        timeout: opts.timeoutMs ?? 30_000,
        headers: {
          Accept: 'application/json',
          ...(ep.token ? { Authorization: `Bearer ${ep.token}` } : {}),
          ...(opts.contentType !== undefined ? { 'Content-Type': opts.contentType } : {}),
          // Explicit length: Node sends neither length nor chunking for a DELETE/OPTIONS body otherwise.
          ...(body !== undefined ? { 'Content-Length': String(body.length) } : {}),
          ...opts.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ code: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer in ${opts.timeoutMs ?? 30_000} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** JSON body helper. */
export const jsonBody = (v: unknown): Pick<RawRequestOptions, 'body' | 'contentType'> => ({
  body: JSON.stringify(v),
  contentType: 'application/json',
});
