// What the paused-leader case checks, from what the servers saw (the recording fronts) and from the deposed
// manager's own end (exit code, log records): pure functions, unit-tested beside.
import type { ManagerExit } from './support/manager-process';
import type { FrontRequest } from './support/recording-front';

/** HTTP methods that change state (LIST and WATCH are GETs). */
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export interface DeposedActivity {
  /** Writes the API server received from the deposed leader once the new one held the Lease (Lease included). */
  writes: FrontRequest[];
  /**
   * Events it posted from then on: not counted as writes. Events are best effort and change no object a controller
   * owns; the manager's fence leaves them out on purpose (libs/controller-runtime/src/client/kube-client.ts), as
   * upstream's deposed leader still records its "stopped leading" Event (client-go leaderelection.go).
   */
  events: FrontRequest[];
  /** Calls the extension received from it (any hook, Discovery included) from then on. */
  hookCalls: FrontRequest[];
}

/** The deposed leader's writes and hook calls at or after `acquiredAt` (the new holder's Lease acquireTime, epoch ms). */
export function deposedActivity(
  name: string,
  acquiredAt: number,
  apiRequests: readonly FrontRequest[],
  hookRequests: readonly FrontRequest[],
): DeposedActivity {
  const after = apiRequests.filter((r) => r.from === name && r.at >= acquiredAt && WRITE_METHODS.has(r.method));
  const isEvent = (r: FrontRequest) => /\/events(\/|\?|$)/.test(r.path);
  return {
    writes: after.filter((r) => !isEvent(r)),
    events: after.filter(isEvent),
    hookCalls: hookRequests.filter((r) => r.from === name && r.at >= acquiredAt),
  };
}

/** The reason main() gives for a lost leader election (apps/manager/src/lifecycle/leadership-lost-exit.ts). */
export const LEADERSHIP_LOST_REASON = 'leader election lost';

/**
 * Why a process end is not the leadership-lost exit: exit code 1 (not a signal), exactly one "manager exiting" record,
 * the last one of the log, with code 1 and the leadership-lost reason. Empty when it is.
 */
export function leadershipLostExitProblems(exit: ManagerExit, records: readonly Record<string, unknown>[]): string[] {
  const problems: string[] = [];
  if (exit.code !== 1) problems.push(`exit ${exit.code ?? exit.signal}, want code 1`);
  const exiting = records.filter((r) => r.msg === 'manager exiting');
  if (exiting.length !== 1) problems.push(`${exiting.length} "manager exiting" records, want 1`);
  const last = records[records.length - 1];
  if (!last || last.msg !== 'manager exiting') problems.push(`last record is ${JSON.stringify(last?.msg)}`);
  else if (last.code !== 1 || last.reason !== LEADERSHIP_LOST_REASON)
    problems.push(`exit record says code ${String(last.code)}, reason ${JSON.stringify(last.reason)}`);
  return problems;
}
