import * as http from 'http';
import * as https from 'https';
import { KubeConfig } from '@kubernetes/client-node';
import { Status } from '@capi/apimachinery';
import { hostOf } from './client-metrics';
import { ApiError } from './errors';
import type { RequestRateLimiter } from './token-bucket';
import { ApiWarningHandler } from './warnings';

// Raw HTTP(S) to the API server using the kubeconfig's auth (bearer token, client certs, CA, skip-verify).
// client-node's generated APIs do not cover subresources, apply-patch content types or streaming as we need.

export interface RawRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  /**
   * The JSON body; a function is called once the rate limiter admits the request, right before it is sent (see
   * Client.patch). An error it throws rejects the request as a BodyNotBuiltError: nothing was sent.
   */
  body?: unknown;
  contentType?: string;
  /** The Accept header; default application/json. */
  accept?: string;
  signal?: AbortSignal;
  /** The bucket this request takes its token from (its resource's); default the transport's rateLimiter. */
  rateLimiter?: RequestRateLimiter;
  /** Socket inactivity timeout; none when omitted. */
  timeoutMs?: number;
}

export interface TransportOptions {
  /**
   * Client-side throttling shared by every request without a rateLimiter of its own (KubeClient gives each kind its
   * bucket): a request waits for a token before it is sent,
   * a watch's opening request included, as client-go's rest client; the events streaming on an open watch do not.
   */
  rateLimiter?: RequestRateLimiter;
  /** Where the API server's Warning headers go (default: logged as controller-runtime's KubeAPIWarningLogger). */
  warnings?: ApiWarningHandler;
  /**
   * User-Agent header (rest.Config.UserAgent). The API server names the field manager of writes without
   * ?fieldManager= (merge patches, updates) after its first word; without one they are recorded as "unknown".
   */
  userAgent?: string;
  /** How long a pooled keep-alive connection may sit idle before this client closes it; default IDLE_SOCKET_TIMEOUT_MS. */
  idleSocketTimeoutMs?: number;
}

/**
 * Pooled connections are closed after 30 s idle: before kube-apiserver (90 s), a load balancer in front of it (often
 * 60 s) or our embedded server closes them. A request sent on a connection the server is just closing fails with
 * ECONNRESET, and a create cannot be sent again safely.
 */
export const IDLE_SOCKET_TIMEOUT_MS = 30_000;

type TlsMaterial = Pick<
  https.RequestOptions,
  'ca' | 'cert' | 'key' | 'pfx' | 'passphrase' | 'rejectUnauthorized' | 'servername'
>;

/** Same TLS material: strings and flags equal, buffers equal by content, arrays element-wise. */
export function sameTlsMaterial(a: TlsMaterial, b: TlsMaterial): boolean {
  const keys = ['ca', 'cert', 'key', 'pfx', 'passphrase', 'rejectUnauthorized', 'servername'] as const;
  return keys.every((k) => sameTlsValue(a[k], b[k]));
}

function sameTlsValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Buffer.isBuffer(a) && Buffer.isBuffer(b)) return a.equals(b);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => sameTlsValue(v, b[i]));
  if (a && b && typeof a === 'object' && typeof b === 'object') return JSON.stringify(a) === JSON.stringify(b); // e.g. pfx objects: rare
  return false;
}

/** A request whose deferred body could not be built, so it was never sent; `cause` is the builder's error. */
export class BodyNotBuiltError extends Error {
  constructor(override readonly cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

export class Transport {
  /** The server's host[:port] as the kubeconfig writes it (the `host` label of request metrics). */
  readonly host: string;
  private readonly server: URL;
  private readonly agent: http.Agent;
  /** Keep-alive TLS agent for the kubeconfig's current TLS material (see tlsAgentFor). */
  private tlsAgent?: { material: TlsMaterial; agent: https.Agent };
  private readonly warnings: ApiWarningHandler;

  constructor(
    private readonly kubeConfig: KubeConfig,
    private readonly opts: TransportOptions = {},
  ) {
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('kubeconfig has no current cluster');
    this.server = new URL(cluster.server);
    this.host = hostOf(cluster.server);
    this.warnings = opts.warnings ?? new ApiWarningHandler();
    this.agent =
      this.server.protocol === 'https:' ? new https.Agent(this.agentOptions()) : new http.Agent(this.agentOptions());
  }

  /**
   * Sends the request and resolves with the parsed JSON body; non-2xx → ApiError with the server's Status.
   * `onStatus` gets the response's status code (e.g. 201 for a create) for request metrics.
   */
  async json<T>(req: RawRequest, onStatus?: (code: number) => void): Promise<T> {
    const res = await this.open(req);
    onStatus?.(res.statusCode ?? 0);
    const text = await readBody(res);
    if ((res.statusCode ?? 0) >= 300) throw toApiError(res.statusCode ?? 0, text);
    return (text ? JSON.parse(text) : {}) as T;
  }

  /** Sends the request and resolves with the response stream (caller checks the status). */
  async open(req: RawRequest): Promise<http.IncomingMessage> {
    await (req.rateLimiter ?? this.opts.rateLimiter)?.wait(req.signal);
    if (typeof req.body === 'function') {
      const build = req.body as () => unknown;
      try {
        req = { ...req, body: await build() };
      } catch (e) {
        throw new BodyNotBuiltError(e);
      }
    }
    try {
      return await this.send(req);
    } catch (err) {
      // A pooled keep-alive socket may have been closed by the server just as we reused it; the request never
      // reached the server then, so sending it once more on a fresh socket is safe (as Go's net/http does for
      // idempotent requests). POST (create) is not retried: a duplicate create would surface as a false 409.
      if (!(err instanceof StaleSocketError) || req.method === 'POST')
        throw err instanceof StaleSocketError ? err.original : err;
      return this.send(req);
    }
  }

  private async send(req: RawRequest): Promise<http.IncomingMessage> {
    const url = new URL(this.server.href.replace(/\/$/, '') + req.path);
    for (const [k, v] of Object.entries(req.query ?? {}))
      if (v !== undefined && v !== '') url.searchParams.set(k, String(v));
    const payload = req.body === undefined ? undefined : Buffer.from(JSON.stringify(req.body));
    const opts: https.RequestOptions = {
      method: req.method,
      hostname: url.hostname,
      port: url.port,
      path: url.pathname + url.search,
      agent: this.agent,
      signal: req.signal,
    };
    // Adds the Authorization header and TLS material (CA, client cert/key, skip-verify) from the kubeconfig.
    await this.kubeConfig.applyToHTTPSOptions(opts);
    // client-node puts a fresh Agent on every call, which costs a TLS handshake per request (~30 ms); reuse one
    // keep-alive agent with the same TLS material instead (headers, e.g. a refreshed token, still come per call).
    if (url.protocol === 'https:') opts.agent = this.tlsAgentFor(opts);
    opts.headers = {
      ...(opts.headers ?? {}),
      Accept: req.accept ?? 'application/json',
      ...(this.opts.userAgent ? { 'User-Agent': this.opts.userAgent } : {}),
      ...(payload ? { 'Content-Type': req.contentType ?? 'application/json', 'Content-Length': payload.length } : {}),
    };
    const mod = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      let answered = false;
      const r = mod.request(opts, (res) => {
        answered = true;
        this.warnings.handle(res.headersDistinct.warning, `${req.method} ${req.path}`);
        resolve(res);
      });
      r.on('error', (err: NodeJS.ErrnoException) =>
        reject(!answered && r.reusedSocket && err.code === 'ECONNRESET' ? new StaleSocketError(err) : err),
      );
      // Watches stay open by design; everything else must answer in time.
      if (req.timeoutMs)
        r.setTimeout(req.timeoutMs, () =>
          r.destroy(new Error(`${req.method} ${req.path} timed out after ${req.timeoutMs}ms`)),
        );
      if (payload) r.write(payload);
      r.end();
    });
  }

  private tlsAgentFor(opts: https.RequestOptions): https.Agent {
    const tls: TlsMaterial = {
      ca: opts.ca,
      cert: opts.cert,
      key: opts.key,
      pfx: opts.pfx,
      passphrase: opts.passphrase,
      rejectUnauthorized: opts.rejectUnauthorized,
      servername: opts.servername,
    };
    // Rebuilt when the material changes (e.g. an exec credential plugin rotating the client certificate). Compared
    // field by field (buffers by content), not serialised: this runs on every request.
    if (!this.tlsAgent || !sameTlsMaterial(this.tlsAgent.material, tls)) {
      this.tlsAgent?.agent.destroy();
      this.tlsAgent = { material: tls, agent: new https.Agent({ ...this.agentOptions(), ...tls }) };
    }
    return this.tlsAgent.agent;
  }

  /**
   * Node's agent sets `timeout` on each socket it pools and destroys a pooled socket that times out; a socket in use
   * takes the request's own timeout instead (watches: none).
   */
  private agentOptions(): http.AgentOptions {
    return { keepAlive: true, timeout: this.opts.idleSocketTimeoutMs ?? IDLE_SOCKET_TIMEOUT_MS };
  }

  close(): void {
    this.agent.destroy();
    this.tlsAgent?.agent.destroy();
  }
}

/** The request failed on a reused keep-alive socket before any response: it never reached the server. */
class StaleSocketError extends Error {
  constructor(readonly original: Error) {
    super(original.message);
  }
}

export function readBody(res: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
  });
}

/** Builds an ApiError from a response body, falling back to a synthetic Status when the body is not one. */
export function toApiError(code: number, body: string): ApiError {
  let status: Status | undefined;
  try {
    const parsed = JSON.parse(body);
    if (parsed && parsed.kind === 'Status') status = parsed as Status;
  } catch {
    // not JSON
  }
  return new ApiError(
    code,
    status ?? {
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      code,
      reason: reasonForCode(code),
      message: body || `HTTP ${code}`,
    },
  );
}

function reasonForCode(code: number): string {
  const reasons: Record<number, string> = {
    400: 'BadRequest',
    401: 'Unauthorized',
    403: 'Forbidden',
    404: 'NotFound',
    405: 'MethodNotAllowed',
    409: 'Conflict',
    410: 'Expired',
    422: 'Invalid',
    429: 'TooManyRequests',
    500: 'InternalError',
    503: 'ServiceUnavailable',
  };
  return reasons[code] ?? 'Unknown';
}
