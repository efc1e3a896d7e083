// The single HTTP round trip used by discovery and hook calls: URL, ?timeout=, POST, status check, decode + validate.
import path from 'node:path';
import {
  decodeHookResponse,
  RESPONSE_STATUSES,
  type HookName,
  type HookResponse,
  type ResponseStatus,
} from '@capi/api';
import { gvhToPath, type GroupVersionHook } from './catalog';
import { ExtensionCallError } from './errors';
import { boundExtensionMessage } from './message-limit';
import type { ClientConfig } from './extension-config';
import { ERROR_CODE_LABEL, UNKNOWN_RESPONSE_STATUS, type RuntimeSdkMetrics } from './metrics';
import type { ExtensionTransport } from './transport';

/**
 * Base URL + hook path. `service` -> https://<name>.<namespace>.svc[:<port>]<path>; `url` must be https.
 * Returned as a string so an explicit port (also 443) stays visible, like upstream's url.URL.
 */
export function extensionUrl(config: ClientConfig, gvh: GroupVersionHook, handlerName?: string): string {
  let base: { origin: string; path: string };
  if (config.service) {
    const s = config.service;
    if (!s.name || !s.namespace)
      throw new ExtensionCallError('InvalidClientConfig', 'clientConfig.service requires name and namespace');
    const host = `${s.name}.${s.namespace}.svc${s.port !== undefined ? `:${s.port}` : ''}`;
    base = { origin: `https://${host}`, path: s.path ?? '' };
  } else if (config.url) {
    let u: URL;
    try {
      u = new URL(config.url);
    } catch {
      throw new ExtensionCallError('InvalidClientConfig', `failed to parse url ${JSON.stringify(config.url)}`);
    }
    if (u.protocol !== 'https:') {
      throw new ExtensionCallError('InvalidClientConfig', `expected https scheme, got ${u.protocol.replace(/:$/, '')}`);
    }
    base = { origin: `https://${u.host}`, path: u.pathname };
  } else {
    throw new ExtensionCallError(
      'InvalidClientConfig',
      'at least one of clientConfig.url or clientConfig.service must be set',
    );
  }
  return base.origin + path.posix.join('/', base.path, gvhToPath(gvh, handlerName));
}

/** Go time.Duration.String() for whole seconds: 10 -> "10s", 90 -> "1m30s". */
export function formatDurationSeconds(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (h > 0) return `${h}h${m}m${s}s`;
  if (m > 0) return `${m}m${s}s`;
  return `${s}s`;
}

export interface InvokeOptions {
  transport: ExtensionTransport;
  clientConfig: ClientConfig;
  gvh: GroupVersionHook;
  hook: HookName;
  handlerName?: string;
  timeoutSeconds: number;
  /** Registration name, for error messages. */
  extension?: string;
  /** Request count and duration (upstream's Runtime SDK metrics); not recorded when absent. */
  metrics?: RuntimeSdkMetrics;
}

/** POSTs `request` and returns the validated response; status Failure is returned, not thrown (callers decide). */
export async function invokeHandler<H extends HookName>(
  opts: InvokeOptions & { hook: H },
  request: unknown,
): Promise<HookResponse<H>> {
  const raw = extensionUrl(opts.clientConfig, opts.gvh, opts.handlerName);
  const url = new URL(raw);
  // As Go's url.URL.Host: an explicit port stays, also the default one (URL would drop ":443").
  const host = raw.slice('https://'.length).split('/')[0];
  if (opts.timeoutSeconds > 0) url.searchParams.set('timeout', formatDurationSeconds(opts.timeoutSeconds));
  const where = opts.extension ? `extension handler ${JSON.stringify(opts.extension)}` : `extension at ${url.origin}`;

  const started = performance.now();
  const observed = { code: ERROR_CODE_LABEL, status: UNKNOWN_RESPONSE_STATUS };
  try {
    return await post(opts, url, request, where, observed);
  } finally {
    opts.metrics?.observe({ host, gvh: opts.gvh, ...observed, seconds: (performance.now() - started) / 1000 });
  }
}

async function post<H extends HookName>(
  opts: InvokeOptions & { hook: H },
  url: URL,
  request: unknown,
  where: string,
  observed: { code: string; status: string },
): Promise<HookResponse<H>> {
  const details = { hook: opts.hook, extension: opts.extension };
  let res;
  try {
    res = await opts.transport.post(url, request, {
      caBundle: opts.clientConfig.caBundle,
      timeoutMs: opts.timeoutSeconds * 1000,
    });
  } catch (e) {
    if (e instanceof ExtensionCallError) {
      throw new ExtensionCallError(e.reason, `failed to call ${where}: ${e.message}`, {
        ...details,
        cause: e.details.cause ?? e,
      });
    }
    throw new ExtensionCallError('TransportError', `failed to call ${where}: ${(e as Error).message}`, {
      ...details,
      cause: e,
    });
  }
  observed.code = String(res.statusCode);
  if (res.statusCode !== 200) {
    throw new ExtensionCallError(
      'HttpStatus',
      `failed to call ${where}: got HTTP status ${res.statusCode}${res.body ? `: ${res.body.slice(0, 300)}` : ''}`,
      { ...details, httpStatus: res.statusCode },
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(res.body);
  } catch (e) {
    throw new ExtensionCallError(
      'MalformedResponse',
      `failed to decode response from ${where}: ${(e as Error).message}`,
      details,
    );
  }
  // Upstream decodes first (a type error is a call error, subject to failurePolicy) and checks `status` after, as
  // an error the failure policy does not apply to. A string status other than Success/Failure (or none) is that case.
  const status = isJsonObject(parsed) ? parsed.status : undefined;
  if (typeof status === 'string' && status !== '') observed.status = status;
  const statusInvalid =
    isJsonObject(parsed) &&
    (status === undefined ||
      status === null ||
      (typeof status === 'string' && !RESPONSE_STATUSES.includes(status as ResponseStatus)));
  const decoded = decodeHookResponse(opts.hook, statusInvalid ? { ...(parsed as object), status: 'Success' } : parsed);
  if (!decoded.ok) {
    throw new ExtensionCallError(
      'MalformedResponse',
      `failed to decode response from ${where}: ${boundExtensionMessage(decoded.message)}`,
      details,
    );
  }
  if (statusInvalid) {
    throw new ExtensionCallError(
      'InvalidResponseStatus',
      `failed to call ${where}: got a response without a valid status (${status == null ? 'status is not set' : `status ${boundExtensionMessage(JSON.stringify(status), 300)}`}, expected Success or Failure)`,
      details,
    );
  }
  // The one place a response's message enters: every consumer (conditions, Failure errors, logs, the response cache)
  // gets it bounded.
  const value = decoded.value;
  if (typeof value.message === 'string') value.message = boundExtensionMessage(value.message);
  return value;
}

const isJsonObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);
