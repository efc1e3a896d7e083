/** Request counters by verb and resource ("<group>/<plural>[/status]"), for tests and benchmarks. */
export interface RequestCounts {
  total: number;
  byVerb: Record<string, number>;
  byResource: Record<string, number>;
  /** "<verb> <group>/<plural>" → count */
  byVerbResource: Record<string, number>;
  /** Writes only: "<verb> <group>/<plural>[/status] <fieldManager>" → count (which client wrote what). */
  writesByManager: Record<string, number>;
  /** The writes of writesByManager that succeeded but left the stored object as it was (same keys). */
  noopWritesByManager: Record<string, number>;
  /** The writes of writesByManager that the server refused (conflict, invalid, not found...). */
  failedWritesByManager: Record<string, number>;
  /** The writes of writesByManager sent with dryRun=All: the server persisted nothing (same keys). */
  dryRunWritesByManager: Record<string, number>;
}

export class RequestMetrics {
  private counts = new Map<string, number>();
  private writeCounts = new Map<string, number>();
  private noopWriteCounts = new Map<string, number>();
  private failedWriteCounts = new Map<string, number>();
  private dryRunWriteCounts = new Map<string, number>();

  /** Live counts keyed "<verb> <group>/<plural>[/status]". */
  get requests(): Record<string, number> {
    return Object.fromEntries(this.counts);
  }

  record(
    verb: string,
    resource: string,
    write?: { fieldManager: string; outcome: 'changed' | 'noop' | 'failed'; dryRun?: boolean },
  ): void {
    const k = `${verb} ${resource}`;
    this.counts.set(k, (this.counts.get(k) ?? 0) + 1);
    if (!write) return;
    const w = `${k} ${write.fieldManager || '-'}`;
    this.writeCounts.set(w, (this.writeCounts.get(w) ?? 0) + 1);
    const outcome =
      write.outcome === 'noop' ? this.noopWriteCounts : write.outcome === 'failed' ? this.failedWriteCounts : undefined;
    outcome?.set(w, (outcome.get(w) ?? 0) + 1);
    if (write.dryRun) this.dryRunWriteCounts.set(w, (this.dryRunWriteCounts.get(w) ?? 0) + 1);
  }

  /** A snapshot; later requests do not change it. */
  snapshot(): RequestCounts {
    const out: RequestCounts = {
      total: 0,
      byVerb: {},
      byResource: {},
      byVerbResource: {},
      writesByManager: Object.fromEntries(this.writeCounts),
      noopWritesByManager: Object.fromEntries(this.noopWriteCounts),
      failedWritesByManager: Object.fromEntries(this.failedWriteCounts),
      dryRunWritesByManager: Object.fromEntries(this.dryRunWriteCounts),
    };
    for (const [k, n] of this.counts) {
      const [verb, resource] = k.split(' ');
      out.total += n;
      out.byVerb[verb] = (out.byVerb[verb] ?? 0) + n;
      out.byResource[resource] = (out.byResource[resource] ?? 0) + n;
      out.byVerbResource[k] = n;
    }
    return out;
  }

  /** Writes (create, update, patch, apply, delete, deletecollection) in a snapshot. */
  static writes(c: RequestCounts): number {
    return ['create', 'update', 'patch', 'apply', 'delete', 'deletecollection'].reduce(
      (s, v) => s + (c.byVerb[v] ?? 0),
      0,
    );
  }

  /**
   * The counters in Prometheus text format, served at GET /metrics: kube-apiserver's `apiserver_request_total` (its
   * verb labels: POST, PUT, PATCH, APPLY, DELETE, DELETECOLLECTION, GET, LIST, WATCH; no code, scope or version label:
   * not counted here), and the writes by field manager and outcome, which kube-apiserver does not count, as
   * `capi_apiserver_write_requests_total{verb,group,resource,subresource,field_manager,outcome}` (outcome changed, noop
   * or failed). Counters since start or the last reset(): a reader takes the difference of two readings.
   */
  renderPrometheus(): string {
    return renderRequestMetrics(this.snapshot());
  }

  /** Writes that could persist something: all writes but the dry runs. */
  static nonDryRunWrites(c: RequestCounts): number {
    return RequestMetrics.writes(c) - Object.values(c.dryRunWritesByManager).reduce((s, n) => s + n, 0);
  }

  reset(): void {
    this.counts.clear();
    this.writeCounts.clear();
    this.noopWriteCounts.clear();
    this.failedWriteCounts.clear();
    this.dryRunWriteCounts.clear();
  }
}

/** The embedded server's verbs → kube-apiserver's verb labels (k8s.io/apiserver/pkg/endpoints/metrics). */
const KUBE_VERBS: Record<string, string> = {
  create: 'POST',
  update: 'PUT',
  patch: 'PATCH',
  apply: 'APPLY',
  delete: 'DELETE',
  deletecollection: 'DELETECOLLECTION',
  get: 'GET',
  list: 'LIST',
  watch: 'WATCH',
};

/** "<group>/<plural>[/<sub>]" (the core group empty) → its labels. */
function resourceLabels(resource: string): string {
  const [group, plural, sub] = resource.split('/');
  return `group=${quote(group)},resource=${quote(plural ?? '')},subresource=${quote(sub ?? '')}`;
}

const quote = (v: string) => JSON.stringify(v);

/** RequestMetrics.renderPrometheus for a snapshot. */
export function renderRequestMetrics(c: RequestCounts): string {
  const lines = [
    '# HELP apiserver_request_total Counter of apiserver requests broken out for each verb, group, resource and subresource.',
    '# TYPE apiserver_request_total counter',
  ];
  for (const [k, n] of Object.entries(c.byVerbResource)) {
    const [verb, resource] = k.split(' ');
    lines.push(
      `apiserver_request_total{verb=${quote(KUBE_VERBS[verb] ?? verb.toUpperCase())},${resourceLabels(resource)}} ${n}`,
    );
  }
  lines.push(
    '# HELP capi_apiserver_write_requests_total Writes by verb, resource, field manager and outcome (changed, noop: the stored object left as it was, failed: refused).',
    '# TYPE capi_apiserver_write_requests_total counter',
  );
  for (const [k, n] of Object.entries(c.writesByManager)) {
    const [verb, resource, manager] = k.split(' ');
    const noop = c.noopWritesByManager[k] ?? 0;
    const failed = c.failedWritesByManager[k] ?? 0;
    const base = `verb=${quote(KUBE_VERBS[verb] ?? verb.toUpperCase())},${resourceLabels(resource)},field_manager=${quote(manager)}`;
    for (const [outcome, v] of [
      ['changed', n - noop - failed],
      ['noop', noop],
      ['failed', failed],
    ] as const)
      if (v > 0) lines.push(`capi_apiserver_write_requests_total{${base},outcome="${outcome}"} ${v}`);
  }
  return `${lines.join('\n')}\n`;
}
