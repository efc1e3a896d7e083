// Writes (and reads) counted at kube-apiserver, from its own counter apiserver_request_total (GET /metrics, one sample per
// verb/group/resource/subresource/code), in the keys the embedded server's RequestMetrics uses ("<verb> <group>/<plural>[/<sub>]")
// so the bench's tables read the same on both targets. kube-apiserver counts a request whatever its outcome, as the
// embedded server does (conflicts included); it has no field-manager label, so there is no per-manager breakdown.
import { getWithToken, type KubeApiServerEndpoint } from '@capi/kube-control-plane';

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

const SAMPLE = /^apiserver_request_total\{([^}]*)\} (\S+)$/;
const LABEL = /(\w+)="((?:[^"\\]|\\.)*)"/g;

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

function requestsFromMetrics(text: string, verbs: Record<string, string>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of text.split('\n')) {
    const m = SAMPLE.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of m[1].matchAll(LABEL)) labels[l[1]] = l[2];
    const verb = verbs[labels.verb];
    if (!verb || labels.dry_run) continue;
    const resource = `${labels.group ?? ''}/${labels.resource}`;
    if (OWN_RESOURCES.has(resource)) continue;
    const key = `${verb} ${resource}${labels.subresource ? `/${labels.subresource}` : ''}`;
    out[key] = (out[key] ?? 0) + Number(m[2]);
  }
  return out;
}

/** after − before, keys without writes in between left out. */
export function countsDelta(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(after)) if (v - (before[k] ?? 0) > 0) out[k] = v - (before[k] ?? 0);
  return out;
}

/** Counts writes (and reads) at kube-apiserver between reset() and count(). */
export class KubeApiServerRequests {
  private base = { writes: {} as Record<string, number>, reads: {} as Record<string, number> };
  private last = this.base;

  constructor(private readonly endpoint: KubeApiServerEndpoint) {}

  private async read(): Promise<{ writes: Record<string, number>; reads: Record<string, number> }> {
    const { status, body } = await getWithToken(this.endpoint, '/metrics');
    if (status !== 200) throw new Error(`kube-apiserver /metrics answered ${status}`);
    return { writes: writesFromMetrics(body), reads: readsFromMetrics(body) };
  }

  async reset(): Promise<void> {
    this.base = await this.read();
    this.last = this.base;
  }

  /** Writes since reset(); also takes the reading readsSinceReset() reports. */
  async count(): Promise<Record<string, number>> {
    this.last = await this.read();
    return countsDelta(this.base.writes, this.last.writes);
  }

  /** Reads between reset() and the last count(). */
  readsSinceReset(): Record<string, number> {
    return countsDelta(this.base.reads, this.last.reads);
  }
}
