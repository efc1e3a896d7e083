// The rollout bench's tables (stdout): per phase time and writes, CPU time and peak RSS by process, the manager's
// requests to the management API server, writes by resource and field manager, reconciles per controller.
import { clientRequestRows, PROCESS_HEADER, processRows, qpsOf } from './manager-cost';
import { reconcileRows } from './reconciles';
import type { PhaseResult } from './rollout';
import type { RolloutTarget } from './rollout-targets';
import { renderTable, type Cell } from './table';

/**
 * One row per (resource, verb, field manager) seen in any phase, most first: per phase, writes per Machine and how
 * many of those changed nothing at the server (no-op) or were refused (failed: conflicts mostly).
 */
export function writeBreakdown(
  results: Pick<PhaseResult, 'byManager' | 'noopByManager' | 'failedByManager'>[],
  replicas: number,
): Cell[][] {
  const keys = [...new Set(results.flatMap((r) => Object.keys(r.byManager)))];
  const total = (k: string) => results.reduce((n, r) => n + (r.byManager[k] ?? 0), 0);
  return keys
    .sort((a, b) => total(b) - total(a))
    .map((k) => {
      const [verb, resource, manager] = k.split(' ');
      return [
        resource,
        verb,
        manager,
        ...results.flatMap((r) => [
          (r.byManager[k] ?? 0) / replicas,
          (r.noopByManager[k] ?? 0) / replicas,
          (r.failedByManager[k] ?? 0) / replicas,
        ]),
      ];
    });
}

/** One row per (resource, verb), most first: per phase, writes per Machine (kube-apiserver has no field-manager label). */
export function writeBreakdownByResource(results: Pick<PhaseResult, 'byResource'>[], replicas: number): Cell[][] {
  const keys = [...new Set(results.flatMap((r) => Object.keys(r.byResource)))];
  const total = (k: string) => results.reduce((n, r) => n + (r.byResource[k] ?? 0), 0);
  return keys
    .sort((a, b) => total(b) - total(a))
    .map((k) => {
      const [verb, resource] = k.split(' ');
      return [resource, verb, ...results.map((r) => (r.byResource[k] ?? 0) / replicas)];
    });
}

export function printTables(
  target: RolloutTarget,
  results: PhaseResult[],
  replicas: number,
  maxUnavailable: number,
  managerFlags: string[],
): void {
  const rows: Cell[][] = results.map((r) => [
    r.phase,
    replicas,
    r.seconds,
    r.writes,
    r.writes / replicas,
    r.machineWrites / replicas,
    r.kept,
    r.replaced,
  ]);
  const flags = managerFlags.length ? `; manager flags: ${managerFlags.join(' ')}` : '';
  process.stdout.write(
    `[${target.name}] MachineDeployment of ${replicas} Machines (+1 control plane Machine), maxSurge 0, maxUnavailable ${maxUnavailable}, zero-latency updater; ${target.where}${flags}\n`,
  );
  process.stdout.write(
    renderTable(
      [
        'phase',
        'machines',
        'seconds',
        'API writes',
        'writes/Machine',
        'excl. ExtensionConfig+Events',
        'kept (same UID)',
        'replaced',
      ],
      rows,
    ),
  );
  process.stdout.write(
    `\nCPU time and peak RSS by process (sampled from /proc every 250 ms)\n${renderTable(PROCESS_HEADER, processRows(results, replicas, target.selfName, 'manager'))}`,
  );
  const qps = qpsOf(managerFlags);
  const requests = clientRequestRows(results, replicas, qps);
  process.stdout.write(
    `\nthe manager's requests to the management API server (rest_client_requests_total; a watch is a GET)${qps ? "; floor: the busiest resource's writes ÷ QPS, the least time its token bucket allows (a bucket per kind, as upstream's client)" : ''}\n${renderTable(requests.header, requests.rows)}`,
  );
  if (target.name === 'embedded') {
    process.stdout.write(
      `\nwrites per Machine by resource, verb and field manager\n${renderTable(['resource', 'verb', 'field manager', ...results.flatMap((r) => [r.phase, 'no-op', 'failed'])], writeBreakdown(results, replicas))}`,
    );
  } else {
    process.stdout.write(
      `\nwrites per Machine by resource and verb (kube-apiserver's apiserver_request_total)\n${renderTable(['resource', 'verb', ...results.map((r) => r.phase)], writeBreakdownByResource(results, replicas))}`,
    );
  }
  process.stdout.write(
    `\nreconciles per controller (controller_runtime_reconcile_total; seconds: summed wall time of the reconciles, concurrent ones overlapping)\n${renderTable(['controller', ...results.flatMap((r) => [r.phase, 'per Machine', 'seconds'])], reconcileRows(results, replicas))}`,
  );
  const [, inPlace, replacement] = results;
  if (replacement)
    process.stdout.write(
      `in-place vs replacement: time ${(inPlace.seconds / replacement.seconds).toFixed(2)}x, writes ${(inPlace.writes / replacement.writes).toFixed(2)}x\n\n`,
    );
}
