// HTTPS POST of a JSON body to an extension. Maps every failure to a typed ExtensionCallError.
import https from 'node:https';
import { isIP } from 'node:net';
import { staticClientCertificate, type ClientCertificate, type ClientCertificateSource } from './client-certificate';
import { ExtensionCallError } from './errors';

export interface PostOptions {
  /** base64 PEM bundle (ExtensionConfig caBundle); absent = system roots. */
  caBundle?: string;
  timeoutMs: number;
}

export interface TransportResponse {
  statusCode: number;
  body: string;
}

/** Injectable so tests and alternative stacks can replace the network. */
export interface ExtensionTransport {
  post(url: URL, body: unknown, opts: PostOptions): Promise<TransportResponse>;
}

const MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

export class HttpsExtensionTransport implements ExtensionTransport {
  /** One agent per (host, caBundle): keeps connections and TLS sessions (upstream caches http clients the same way). */
  private readonly agents = new Map<string, https.Agent>();
  private readonly clientCertificate?: ClientCertificateSource;
  private certificateVersion?: number;

  constructor(clientCertificate?: ClientCertificate | ClientCertificateSource) {
    this.clientCertificate =
      clientCertificate && 'current' in clientCertificate
        ? clientCertificate
        : clientCertificate
          ? staticClientCertificate(clientCertificate)
          : undefined;
  }

  private agentFor(url: URL, caBundle?: string): https.Agent {
    const client = this.clientCertificate?.current();
    // A reloaded client certificate: new agents from now on; the old ones finish their requests, then close.
    if (client && client.version !== this.certificateVersion) {
      for (const old of this.agents.values()) retire(old);
      this.agents.clear();
      this.certificateVersion = client.version;
    }
    const key = `${url.host}\u0000${caBundle ?? ''}`;
    let agent = this.agents.get(key);
    if (!agent) {
      agent = new https.Agent({
        keepAlive: true,
        ca: caBundle ? Buffer.from(caBundle, 'base64').toString('utf8') : undefined,
        cert: client?.certificate.cert,
        key: client?.certificate.key,
      });
      this.agents.set(key, agent);
    }
    return agent;
  }

  post(url: URL, body: unknown, opts: PostOptions): Promise<TransportResponse> {
    if (url.protocol !== 'https:') {
      return Promise.reject(
        new ExtensionCallError('InvalidClientConfig', `expected https scheme, got ${url.protocol.replace(':', '')}`),
      );
    }
    const payload = Buffer.from(JSON.stringify(body), 'utf8');
    return new Promise((resolve, reject) => {
      let settled = false;
      const fail = (e: ExtensionCallError) => {
        if (!settled) {
          settled = true;
          reject(e);
        }
      };
      const req = https.request(
        url,
        {
          method: 'POST',
          agent: this.agentFor(url, opts.caBundle),
          // SNI must not carry an IP (RFC 6066); the certificate is still checked against the IP.
          ...(isIP(url.hostname.replace(/^\[|\]$/g, '')) ? {} : { servername: url.hostname }),
          headers: { 'content-type': 'application/json', accept: 'application/json', 'content-length': payload.length },
          signal: AbortSignal.timeout(opts.timeoutMs),
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size > MAX_RESPONSE_BYTES) {
              req.destroy();
              fail(
                new ExtensionCallError('MalformedResponse', `response body larger than ${MAX_RESPONSE_BYTES} bytes`),
              );
              return;
            }
            chunks.push(c);
          });
          res.on('end', () => {
            if (!settled) {
              settled = true;
              resolve({ statusCode: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
            }
          });
          res.on('error', (e) => fail(toCallError(e, opts.timeoutMs)));
        },
      );
      req.on('error', (e) => fail(toCallError(e, opts.timeoutMs)));
      req.end(payload);
    });
  }

  /** Closes idle keep-alive sockets. */
  close(): void {
    for (const a of this.agents.values()) a.destroy();
    this.agents.clear();
  }
}

/** Closes an agent's idle sockets now and each busy one once its request is done (destroy() would abort those). */
function retire(agent: https.Agent): void {
  for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
  agent.on('free', (socket: { destroy(): void }) => socket.destroy());
}

function toCallError(e: Error, timeoutMs: number): ExtensionCallError {
  if (e.name === 'TimeoutError' || e.name === 'AbortError' || (e as { code?: string }).code === 'ABORT_ERR') {
    return new ExtensionCallError('Timeout', `request timed out after ${timeoutMs / 1000}s`, { cause: e });
  }
  const code = (e as { code?: string }).code;
  return new ExtensionCallError('TransportError', `${code ? code + ': ' : ''}${e.message}`, { cause: e });
}
