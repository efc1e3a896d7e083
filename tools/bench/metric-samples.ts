// Samples of one metric in a Prometheus text exposition (a process's /metrics, or prom-client's registry.metrics()):
// what the rollout bench reads of the manager (rest_client_requests_total, controller_runtime_reconcile_*) and of the
// API servers (apiserver_request_total, capi_apiserver_write_requests_total), in this process or another.

export interface Sample {
  labels: Record<string, string>;
  value: number;
}

const LABEL = /(\w+)="((?:[^"\\]|\\.)*)"/g;

/** The samples named exactly `metric` (a histogram's `_sum` is named with its suffix), in order. */
export function samplesOf(text: string, metric: string): Sample[] {
  const out: Sample[] = [];
  const prefix = `${metric}{`;
  for (const line of text.split('\n')) {
    let labelText = '';
    let rest: string;
    if (line.startsWith(prefix)) {
      const end = line.lastIndexOf('} ');
      if (end < 0) continue;
      labelText = line.slice(prefix.length, end);
      rest = line.slice(end + 2);
    } else if (line.startsWith(`${metric} `)) rest = line.slice(metric.length + 1);
    else continue;
    const labels: Record<string, string> = {};
    for (const l of labelText.matchAll(LABEL)) labels[l[1]] = JSON.parse(`"${l[2]}"`) as string;
    out.push({ labels, value: Number(rest.split(' ')[0]) });
  }
  return out;
}

/** after − before per key, keys without a change in between left out. */
export function countsDelta(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(after)) if (v - (before[k] ?? 0) > 0) out[k] = v - (before[k] ?? 0);
  return out;
}
