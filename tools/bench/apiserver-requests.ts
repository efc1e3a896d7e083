// Writes (and reads) counted at the management API server, from its own counter apiserver_request_total (GET /metrics,
// one sample per verb/group/resource/subresource[/code]) in the keys the embedded server's RequestMetrics uses
// ("<verb> <group>/<plural>[/<sub>]"), so the bench's tables read the same on both targets. kube-apiserver and the
// embedded server count a request whatever its outcome (conflicts included). Only the embedded server also counts
// writes by field manager and outcome (capi_apiserver_write_requests_total); kube-apiserver has no such label.
import { countsDelta, samplesOf } from './metric-samples';

/** kube-apiserver's verb labels of writes → the embedded server's verbs. */
const WRITE_VERBS: Record<string, string> = {
  POST: 'create',
  PUT: 'update',
  PATCH: 'patch',
  APPLY: 'apply',
  DELETE: 'delete',
  DELETECOLLECTION: 'deletecollection',
};

/**
 * What kube-apiserver writes by itself, whoever else is connected (its identity Lease renewed every 10 s, the
 * `kubernetes` Service's endpoints it retries on loopback, its API Priority and Fairness objects): not the bench's.
 * The bench's manager runs without leader election, so it writes no Lease either.
 */
const OWN_RESOURCES = new Set([
  'coordination.k8s.io/leases',
  '/endpoints',
  'discovery.k8s.io/endpointslices',
  'flowcontrol.apiserver.k8s.io/flowschemas',
  'flowcontrol.apiserver.k8s.io/prioritylevelconfigurations',
]);

/** kube-apiserver's verb labels of reads → the embedded server's verbs. */
const READ_VERBS: Record<string, string> = { GET: 'get', LIST: 'list', WATCH: 'watch' };

/** Write counts by "<verb> <group>/<resource>[/<subresource>]" from a /metrics text, kube-apiserver's own left out. */
export function writesFromMetrics(text: string): Record<string, number> {
  return requestsFromMetrics(text, WRITE_VERBS);
}

/** Read counts (get, list, watch), keyed as writesFromMetrics's. */
export function readsFromMetrics(text: string): Record<string, number> {
  return requestsFromMetrics(text, READ_VERBS);
}

const resourceKey = (l: Record<string, string>) =>
  `${l.group ?? ''}/${l.resource}${l.subresource ? `/${l.subresource}` : ''}`;

function requestsFromMetrics(text: string, verbs: Record<string, string>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const { labels, value } of samplesOf(text, 'apiserver_request_total')) {
    const verb = verbs[labels.verb];
    if (!verb || labels.dry_run) continue;
    const resource = `${labels.group ?? ''}/${labels.resource}`;
    if (OWN_RESOURCES.has(resource)) continue;
    const key = `${verb} ${resourceKey(labels)}`;
    out[key] = (out[key] ?? 0) + value;
  }
  return out;
}

/** The embedded server's writes by field manager, keyed "<verb> <group>/<plural>[/<sub>] <field manager>". */
export interface WritesByManager {
  all: Record<string, number>;
  noop: Record<string, number>;
  failed: Record<string, number>;
}

/** capi_apiserver_write_requests_total (the embedded server's only) by field manager: all, no-op and failed. */
export function writesByManagerFromMetrics(text: string): WritesByManager {
  const out: WritesByManager = { all: {}, noop: {}, failed: {} };
  for (const { labels, value } of samplesOf(text, 'capi_apiserver_write_requests_total')) {
    const key = `${WRITE_VERBS[labels.verb] ?? labels.verb.toLowerCase()} ${resourceKey(labels)} ${labels.field_manager}`;
    for (const to of [
      out.all,
      labels.outcome === 'noop' ? out.noop : labels.outcome === 'failed' ? out.failed : undefined,
    ])
      if (to) to[key] = (to[key] ?? 0) + value;
  }
  return out;
}

interface Reading {
  writes: Record<string, number>;
  reads: Record<string, number>;
  byManager: WritesByManager;
}

const deltaByManager = (b: WritesByManager, a: WritesByManager): WritesByManager => ({
  all: countsDelta(b.all, a.all),
  noop: countsDelta(b.noop, a.noop),
  failed: countsDelta(b.failed, a.failed),
});

/** Counts an API server's writes (and reads) between reset() and count(), from its /metrics text. */
export class ApiServerRequests {
  private base: Reading = { writes: {}, reads: {}, byManager: { all: {}, noop: {}, failed: {} } };
  private last = this.base;

  constructor(private readonly metricsText: () => Promise<string>) {}

  private async read(): Promise<Reading> {
    const text = await this.metricsText();
    return {
      writes: writesFromMetrics(text),
      reads: readsFromMetrics(text),
      byManager: writesByManagerFromMetrics(text),
    };
  }

  async reset(): Promise<void> {
    this.base = await this.read();
    this.last = this.base;
  }

  /** Writes since reset(); also takes the reading readsSinceReset() and byManagerSinceReset() report. */
  async count(): Promise<Record<string, number>> {
    this.last = await this.read();
    return countsDelta(this.base.writes, this.last.writes);
  }

  /** Reads between reset() and the last count(). */
  readsSinceReset(): Record<string, number> {
    return countsDelta(this.base.reads, this.last.reads);
  }

  /** Writes by field manager between reset() and the last count() (empty on kube-apiserver). */
  byManagerSinceReset(): WritesByManager {
    return deltaByManager(this.base.byManager, this.last.byManager);
  }
}
