// The rollout bench's figures of the manager's own cost: CPU seconds and peak RSS per process (the manager apart from
// its API server, the workload clusters' servers and the bench), and the manager's requests to the management API
// server from its rest_client_requests_total (client-go's metric, reads included), against the floor a client-side
// rate limit sets. The limit is per resource (a token bucket per kind, as upstream's client), so the floor is the
// busiest resource's requests ÷ --kube-api-qps seconds; that resource's count is the API server's (writes: the
// manager's reads are a few per phase, and nearly every write there is the manager's).
import { countsDelta, samplesOf } from './metric-samples';
import type { Cell } from './table';

/** The manager's requests to one API server (its `host` label) by HTTP method, from its /metrics text. */
export function clientRequestsByMethod(metricsText: string, host: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const { labels, value } of samplesOf(metricsText, 'rest_client_requests_total'))
    if (labels.host === host) out[labels.method] = (out[labels.method] ?? 0) + value;
  return out;
}

/** A phase's requests by method: after − before. */
export const clientRequestsDelta = countsDelta;

/** The client's QPS limit given in the manager flags (`--kube-api-qps=<n>`, the last one wins), when it limits. */
export function qpsOf(managerFlags: string[]): number | undefined {
  const given = managerFlags.filter((f) => f.startsWith('--kube-api-qps=')).at(-1);
  const qps = given === undefined ? NaN : Number(given.slice('--kube-api-qps='.length));
  return qps > 0 ? qps : undefined;
}

export interface PhaseClientRequests {
  phase: string;
  seconds: number;
  /** The manager's requests to the management API server by HTTP method (a watch is a GET). */
  clientRequests: Record<string, number>;
  /** Writes at the management API server, keyed "<verb> <group>/<plural>[/<subresource>]". */
  byResource: Record<string, number>;
}

/** The resource with the most writes, a subresource counted with its object's (one bucket per kind). */
export function busiestResource(byResource: Record<string, number>): { resource: string; writes: number } | undefined {
  const byKind = new Map<string, number>();
  for (const [key, n] of Object.entries(byResource)) {
    const [group, plural] = key.slice(key.indexOf(' ') + 1).split('/');
    const resource = `${group ? `${group}/` : ''}${plural}`;
    byKind.set(resource, (byKind.get(resource) ?? 0) + n);
  }
  let top: { resource: string; writes: number } | undefined;
  for (const [resource, writes] of byKind) if (!top || writes > top.writes) top = { resource, writes };
  return top;
}

export const CLIENT_REQUEST_HEADER = [
  'phase',
  'requests',
  'reads (GET)',
  'writes',
  'requests/Machine',
  'reads/Machine',
  'writes/Machine',
];

/**
 * One row per phase: the manager's requests to the management API server, reads and writes, per Machine; with a QPS
 * limit also the busiest resource, its writes per Machine, the floor (its writes ÷ QPS, the least time that resource's
 * bucket allows) and the phase's time over it.
 */
export function clientRequestRows(
  results: PhaseClientRequests[],
  replicas: number,
  qps?: number,
): { header: string[]; rows: Cell[][] } {
  const header = qps
    ? [...CLIENT_REQUEST_HEADER, 'busiest resource', 'its writes/Machine', `floor s (÷ ${qps} QPS)`, 'time / floor']
    : CLIENT_REQUEST_HEADER;
  const rows = results.map((r) => {
    const all = Object.values(r.clientRequests).reduce((a, b) => a + b, 0);
    const reads = r.clientRequests.GET ?? 0;
    const row: Cell[] = [r.phase, all, reads, all - reads, all / replicas, reads / replicas, (all - reads) / replicas];
    if (qps) {
      const top = busiestResource(r.byResource);
      const floor = (top?.writes ?? 0) / qps;
      row.push(top?.resource ?? '-', (top?.writes ?? 0) / replicas, floor, floor ? r.seconds / floor : '-');
    }
    return row;
  });
  return { header, rows };
}

export interface PhaseProcessCost {
  phase: string;
  /** Peak RSS of the bench's process, and of the others by name. */
  rssMiB: number;
  othersRssMiB: Record<string, number>;
  cpuSeconds: { self: number; others: Record<string, number> };
}

export const PROCESS_HEADER = ['phase', 'process', 'CPU s', 'CPU ms/Machine', 'peak RSS MiB', 'peak RSS KiB/Machine'];

/**
 * One row per phase and process: CPU seconds and peak RSS, both per Machine too. `self` names the bench's process
 * (what runs in it); the others in the order first seen, `first` (the manager) leading when present.
 */
export function processRows(results: PhaseProcessCost[], replicas: number, self: string, first?: string): Cell[][] {
  const names = [
    ...new Set(results.flatMap((r) => [...Object.keys(r.othersRssMiB), ...Object.keys(r.cpuSeconds.others)])),
  ].sort((a, b) => (a === first ? -1 : b === first ? 1 : 0));
  return results.flatMap((r) => {
    const row = (name: string, cpu: number | undefined, rss: number | undefined): Cell[] => [
      r.phase,
      name,
      cpu ?? '-',
      cpu === undefined ? '-' : (cpu * 1000) / replicas,
      rss ?? '-',
      rss === undefined ? '-' : (rss * 1024) / replicas,
    ];
    return [
      ...names.map((n) => row(n, r.cpuSeconds.others[n], r.othersRssMiB[n])),
      row(self, r.cpuSeconds.self, r.rssMiB),
    ];
  });
}
