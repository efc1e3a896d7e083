import { Registry } from 'prom-client';
import { counter } from '../util/metrics';

export type ClientVerb = 'get' | 'list' | 'create' | 'update' | 'patch' | 'apply' | 'delete' | 'watch' | 'discovery';

export const WRITE_VERBS: readonly ClientVerb[] = ['create', 'update', 'patch', 'apply', 'delete'];

export interface ClientRequestInfo {
  verb: ClientVerb;
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

/** controller-runtime's rest_client_requests_total{code,method} on a prom-client registry (method = our verb). */
export class PromClientMetrics implements ClientMetrics {
  private readonly requests;

  constructor(registry: Registry) {
    this.requests = counter(
      registry,
      'rest_client_requests_total',
      'Number of HTTP requests, partitioned by status code and verb.',
      ['code', 'method'],
    );
  }

  observe(info: ClientRequestInfo): void {
    this.requests.inc({ code: String(info.code), method: info.verb });
  }
}

/** Fans one observation out to several sinks. */
export function combineClientMetrics(...sinks: (ClientMetrics | undefined)[]): ClientMetrics {
  const list = sinks.filter((s): s is ClientMetrics => !!s);
  return { observe: (info) => list.forEach((s) => s.observe(info)) };
}
