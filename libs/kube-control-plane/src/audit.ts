// kube-apiserver's audit log as a request counter: what tests count at the embedded server (requests by verb and
// resource, writes by field manager) read from the real server's own record of its requests
// (staging/src/k8s.io/apiserver/pkg/audit, the log backend in blocking mode: an event is written before the response).
import { closeSync, openSync, readSync, statSync } from 'node:fs';

/**
 * Request bodies only for patches, whose body tells an apply configuration from a merge or JSON patch; the rest at
 * Metadata. The stages before the response is complete are left out: one event per request.
 */
export const AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived", "ResponseStarted"]
rules:
- level: Request
  verbs: ["patch"]
- level: Metadata
`;

export interface AuditEvent {
  verb: string;
  requestURI: string;
  user?: { username?: string };
  userAgent?: string;
  objectRef?: { resource?: string; subresource?: string; apiGroup?: string; namespace?: string; name?: string };
  responseStatus?: { code?: number };
  requestObject?: unknown;
}

/** Request counters keyed as the embedded server's RequestMetrics keys them. */
export interface AuditCounts {
  total: number;
  byVerb: Record<string, number>;
  byResource: Record<string, number>;
  /** "<verb> <group>/<plural>[/sub]" → count */
  byVerbResource: Record<string, number>;
  /** Writes: "<verb> <group>/<plural>[/sub] <fieldManager>" → count. */
  writesByManager: Record<string, number>;
  /** Not known from an audit log (it does not say whether a write changed the object): always empty. */
  noopWritesByManager: Record<string, number>;
  /** The writes of writesByManager that the server refused (status ≥ 400). */
  failedWritesByManager: Record<string, number>;
  /** The writes of writesByManager sent with dryRun=All (the request URI says so): nothing persisted. */
  dryRunWritesByManager: Record<string, number>;
}

const BARRIER_PREFIX = 'audit-barrier-';
/** How long kube-apiserver may take to write a request to the audit log. */
const BARRIER_TIMEOUT_MS = 10_000;
/** How often the audit log is read again while waiting for the barrier. */
const BARRIER_POLL_INTERVAL_MS = 20;
const WRITE_VERBS = new Set(['create', 'update', 'patch', 'apply', 'delete', 'deletecollection']);

/**
 * An apply configuration names its object's apiVersion and kind; a merge patch need not and a JSON patch is an
 * array. (The audit event's verb is "patch" for all of them.)
 */
function isApply(requestObject: unknown): boolean {
  const o = requestObject as { apiVersion?: unknown; kind?: unknown } | undefined;
  return (
    !!o && typeof o === 'object' && !Array.isArray(o) && typeof o.apiVersion === 'string' && typeof o.kind === 'string'
  );
}

const queryOf = (ev: AuditEvent) => {
  const q = ev.requestURI.indexOf('?');
  return new URLSearchParams(q < 0 ? '' : ev.requestURI.slice(q + 1));
};

/** The field manager a write names, as the server defaults it: the query parameter, else the user agent's name. */
function fieldManagerOf(ev: AuditEvent): string {
  return queryOf(ev).get('fieldManager') ?? (ev.userAgent ?? 'unknown').split('/')[0];
}

export function countAuditEvents(events: AuditEvent[]): AuditCounts {
  const out: AuditCounts = {
    total: 0,
    byVerb: {},
    byResource: {},
    byVerbResource: {},
    writesByManager: {},
    noopWritesByManager: {},
    failedWritesByManager: {},
    dryRunWritesByManager: {},
  };
  const inc = (m: Record<string, number>, k: string) => (m[k] = (m[k] ?? 0) + 1);
  for (const ev of events) {
    const ref = ev.objectRef;
    if (!ref?.resource) continue; // discovery and other non-resource URLs: the embedded server does not count them
    const verb = ev.verb === 'patch' && isApply(ev.requestObject) ? 'apply' : ev.verb;
    const resource = `${ref.apiGroup ?? ''}/${ref.resource}${ref.subresource ? `/${ref.subresource}` : ''}`;
    out.total++;
    inc(out.byVerb, verb);
    inc(out.byResource, resource);
    inc(out.byVerbResource, `${verb} ${resource}`);
    if (!WRITE_VERBS.has(verb)) continue;
    const key = `${verb} ${resource} ${fieldManagerOf(ev)}`;
    inc(out.writesByManager, key);
    if ((ev.responseStatus?.code ?? 0) >= 400) inc(out.failedWritesByManager, key);
    if (queryOf(ev).getAll('dryRun').includes('All')) inc(out.dryRunWritesByManager, key);
  }
  return out;
}

/** Reads the events appended to an audit log file since a mark (a byte offset). */
export class AuditLog {
  constructor(readonly path: string) {}

  /** The current end of the log: events after it are "new". */
  mark(): number {
    try {
      return statSync(this.path).size;
    } catch {
      return 0;
    }
  }

  /** Whole events (complete lines) written after `since`, each with the log offset just after it. */
  eventsSince(since: number): { event: AuditEvent; end: number }[] {
    const end = this.mark();
    if (end <= since) return [];
    const buf = Buffer.alloc(end - since);
    const fd = openSync(this.path, 'r');
    try {
      readSync(fd, buf, 0, buf.length, since);
    } finally {
      closeSync(fd);
    }
    const out: { event: AuditEvent; end: number }[] = [];
    for (let start = 0, nl = buf.indexOf(10); nl >= 0; start = nl + 1, nl = buf.indexOf(10, start)) {
      if (nl > start)
        out.push({ event: JSON.parse(buf.toString('utf8', start, nl)) as AuditEvent, end: since + nl + 1 });
    }
    return out;
  }
}

/**
 * Counts one user's requests from the audit log since the last reset. Reads wait for a barrier request of their own
 * to show in the log, so every request answered before the call is counted.
 */
export class AuditRequestCounter {
  private since = 0;

  constructor(
    private readonly log: AuditLog,
    private readonly username: string,
    /** Makes a request whose event names `name` as its object (a GET of a ConfigMap that does not exist). */
    private readonly probe: (name: string) => Promise<void>,
  ) {}

  async reset(): Promise<void> {
    this.since = (await this.barrier()).end;
  }

  async counts(): Promise<AuditCounts> {
    const { events } = await this.barrier();
    const mine = events.filter(
      (e) => e.user?.username === this.username && !e.objectRef?.name?.startsWith(BARRIER_PREFIX),
    );
    return countAuditEvents(mine);
  }

  /** The events since the last reset up to this barrier's own (excluded), and the log offset after it. */
  private async barrier(): Promise<{ events: AuditEvent[]; end: number }> {
    const name = `${BARRIER_PREFIX}${process.hrtime.bigint().toString(36)}`;
    await this.probe(name);
    const deadline = Date.now() + BARRIER_TIMEOUT_MS;
    for (;;) {
      const read = this.log.eventsSince(this.since);
      const at = read.findIndex((r) => r.event.objectRef?.name === name);
      if (at >= 0) return { events: read.slice(0, at).map((r) => r.event), end: read[at].end };
      if (Date.now() > deadline)
        throw new Error(
          `the audit log ${this.log.path} did not record the request for ${name} within ${BARRIER_TIMEOUT_MS / 1000} s`,
        );
      await new Promise((r) => setTimeout(r, BARRIER_POLL_INTERVAL_MS));
    }
  }
}
