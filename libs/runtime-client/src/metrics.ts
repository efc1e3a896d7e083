// Runtime SDK request metrics with upstream's names, labels and buckets (internal/runtime/metrics).
import { Counter, Histogram, type Registry } from 'prom-client';
import type { GroupVersionHook } from './catalog';

export const RUNTIME_SDK_REQUESTS_TOTAL = 'capi_runtime_sdk_requests_total';
export const RUNTIME_SDK_REQUEST_DURATION_SECONDS = 'capi_runtime_sdk_request_duration_seconds';
/** `code` of a request that got no HTTP response (unbounded error strings are not labels). */
export const ERROR_CODE_LABEL = '<error>';
/** `status` when the response carries none (no response, non-200, undecodable). */
export const UNKNOWN_RESPONSE_STATUS = 'Unknown';

const DURATION_BUCKETS = [
  0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60,
];
const TOTAL_LABELS = ['code', 'host', 'group', 'version', 'hook', 'status'] as const;
const DURATION_LABELS = ['host', 'group', 'version', 'hook'] as const;

export interface RequestObservation {
  /** URL host ("name:port" when the URL has a port). */
  host: string;
  gvh: GroupVersionHook;
  /** HTTP status code, or ERROR_CODE_LABEL. */
  code: string;
  /** Response status, or UNKNOWN_RESPONSE_STATUS. */
  status: string;
  seconds: number;
}

/** Registers (or reuses, when another module already did on the same registry) the two metrics. */
export class RuntimeSdkMetrics {
  private readonly total: Counter<(typeof TOTAL_LABELS)[number]>;
  private readonly duration: Histogram<(typeof DURATION_LABELS)[number]>;

  constructor(registry: Registry) {
    this.total =
      (registry.getSingleMetric(RUNTIME_SDK_REQUESTS_TOTAL) as Counter<(typeof TOTAL_LABELS)[number]> | undefined) ??
      new Counter({
        name: RUNTIME_SDK_REQUESTS_TOTAL,
        help: 'Number of HTTP requests, partitioned by status code, host, hook and response status.',
        labelNames: [...TOTAL_LABELS],
        registers: [registry],
      });
    this.duration =
      (registry.getSingleMetric(RUNTIME_SDK_REQUEST_DURATION_SECONDS) as
        Histogram<(typeof DURATION_LABELS)[number]> | undefined) ??
      new Histogram({
        name: RUNTIME_SDK_REQUEST_DURATION_SECONDS,
        help: 'Request duration in seconds, broken down by hook and host.',
        labelNames: [...DURATION_LABELS],
        buckets: DURATION_BUCKETS,
        registers: [registry],
      });
  }

  observe(o: RequestObservation): void {
    const { group, version, hook } = o.gvh;
    this.total.inc({ code: o.code, host: o.host, group, version, hook, status: o.status });
    this.duration.observe({ host: o.host, group, version, hook }, o.seconds);
  }
}
