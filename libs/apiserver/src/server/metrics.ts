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
}

export class RequestMetrics {
  private counts = new Map<string, number>();
  private writeCounts = new Map<string, number>();
  private noopWriteCounts = new Map<string, number>();
  private failedWriteCounts = new Map<string, number>();

  /** Live counts keyed "<verb> <group>/<plural>[/status]". */
  get requests(): Record<string, number> {
    return Object.fromEntries(this.counts);
  }

  record(
    verb: string,
    resource: string,
    write?: { fieldManager: string; outcome: 'changed' | 'noop' | 'failed' },
  ): void {
    const k = `${verb} ${resource}`;
    this.counts.set(k, (this.counts.get(k) ?? 0) + 1);
    if (!write) return;
    const w = `${k} ${write.fieldManager || '-'}`;
    this.writeCounts.set(w, (this.writeCounts.get(w) ?? 0) + 1);
    const outcome =
      write.outcome === 'noop' ? this.noopWriteCounts : write.outcome === 'failed' ? this.failedWriteCounts : undefined;
    outcome?.set(w, (outcome.get(w) ?? 0) + 1);
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

  reset(): void {
    this.counts.clear();
    this.writeCounts.clear();
    this.noopWriteCounts.clear();
    this.failedWriteCounts.clear();
  }
}
