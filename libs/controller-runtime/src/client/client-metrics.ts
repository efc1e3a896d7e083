import { Registry } from 'prom-client';
import { counter } from '../util/metrics';

export type ClientVerb = 'get' | 'list' | 'create' | 'update' | 'patch' | 'apply' | 'delete' | 'watch' | 'discovery';

export const WRITE_VERBS: readonly ClientVerb[] = ['create', 'update', 'patch', 'apply', 'delete'];

export interface ClientRequestInfo {
  verb: ClientVerb;
  /** The HTTP method sent (a watch and discovery are GETs, an apply is a PATCH). */
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The API server's host as the kubeconfig names it, port included when it names one (see hostOf). */
  host: string;
  /** Kind the request is about (empty for discovery). */
  kind: string;
  subresource?: string;
  /** HTTP status code, 0 when the connection failed. */
  code: number;
}

/** Observes every request a KubeClient makes (benchmarks count writes per change with it). */
export interface ClientMetrics {
  observe(info: ClientRequestInfo): void;
}

/** In-memory request counts by verb and kind. */
export class CountingClientMetrics implements ClientMetrics {
  private readonly counts = new Map<string, number>();

  observe(info: ClientRequestInfo): void {
    for (const key of [info.verb, `${info.verb}:${info.kind}`]) this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  /** Requests with this verb, optionally only for one kind. */
  count(verb: ClientVerb, kind?: string): number {
    return this.counts.get(kind ? `${verb}:${kind}` : verb) ?? 0;
  }

  /** create + update + patch + apply + delete. */
  writes(kind?: string): number {
    return WRITE_VERBS.reduce((sum, v) => sum + this.count(v, kind), 0);
  }

  reset(): void {
    this.counts.clear();
  }
}

/** Registers (or finds) rest_client_requests_total, the one client-go metric controller-runtime registers. */
export function clientMetrics(registry: Registry) {
  return {
    requests: counter(
      registry,
      'rest_client_requests_total',
      'Number of HTTP requests, partitioned by status code, method, and host.',
      ['code', 'host', 'method'],
    ),
  };
}

/**
 * The `host` label of client-go's request metrics: the host[:port] of the server URL as written (client-go's
 * req.c.base.Host, Go's url.URL.Host), so "https://10.96.0.1:443" gives "10.96.0.1:443" where WHATWG URL would drop
 * the default port. "none" without a server, as client-go's sanitize.
 */
export function hostOf(server: string | undefined): string {
  if (!server) return 'none';
  const scheme = server.indexOf('://');
  const rest = scheme >= 0 ? server.slice(scheme + 3) : server;
  const authority = rest.split(/[/?#]/, 1)[0];
  return authority.slice(authority.lastIndexOf('@') + 1) || 'none';
}

/**
 * controller-runtime's rest_client_requests_total{code,host,method} (pkg/metrics/client_go_adapter.go, fed by
 * client-go's rest/request.go updateRequestResultMetric): code "<error>" when no response came back.
 */
export class PromClientMetrics implements ClientMetrics {
  private readonly requests;

  constructor(registry: Registry) {
    this.requests = clientMetrics(registry).requests;
  }

  observe(info: ClientRequestInfo): void {
    this.requests.inc({ code: info.code === 0 ? '<error>' : String(info.code), host: info.host, method: info.method });
  }
}

/** Fans one observation out to several sinks. */
export function combineClientMetrics(...sinks: (ClientMetrics | undefined)[]): ClientMetrics {
  const list = sinks.filter((s): s is ClientMetrics => !!s);
  return { observe: (info) => list.forEach((s) => s.observe(info)) };
}
