// kube-apiserver's Pod table (kubernetes pkg/printers/internalversion/printers.go printPod): READY, STATUS and RESTARTS
// as `kubectl get pods` shows them.
import { timestampSince } from '@capi/apimachinery';

type Obj = Record<string, any>;
const arr = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter((x) => x && typeof x === 'object') : []);
const time = (v: unknown): number => (typeof v === 'string' ? Date.parse(v) : NaN);

/** A sidecar: an init container with restartPolicy Always (printers.go isRestartableInitContainer). */
const restartable = (c: Obj | undefined) => c?.restartPolicy === 'Always';

const terminatedReason = (t: Obj, prefix: string): string => {
  if (t.reason) return `${prefix}${t.reason}`;
  return t.signal ? `${prefix}Signal:${t.signal}` : `${prefix}ExitCode:${t.exitCode ?? 0}`;
};

const conditionTrue = (pod: Obj, type: string) =>
  arr(pod.status?.conditions).some((c) => c.type === type && c.status === 'True');

/** The cells of one Pod: name, ready/total, status reason, restarts, age, then the wide IP, node, nominated node, gates. */
export function podCells(pod: Obj, now: Date): unknown[] {
  const spec: Obj = pod.spec ?? {};
  const status: Obj = pod.status ?? {};
  const initSpecs = new Map(arr(spec.initContainers).map((c) => [c.name, c]));
  const total = arr(spec.containers).length + arr(spec.initContainers).filter(restartable).length;
  let ready = 0;
  let restarts = 0;
  let sidecarRestarts = 0;
  let lastRestart = NaN;
  let lastSidecarRestart = NaN;
  const later = (a: number, b: number) => (Number.isNaN(a) || b > a ? b : a);
  let reason: string = status.reason || status.phase || '';
  if (arr(status.conditions).some((c) => c.type === 'PodScheduled' && c.reason === 'SchedulingGated'))
    reason = 'SchedulingGated';

  let initializing = false;
  const initStatuses = arr(status.initContainerStatuses);
  for (let i = 0; i < initStatuses.length; i++) {
    const c = initStatuses[i];
    restarts += c.restartCount ?? 0;
    const finished = time(c.lastState?.terminated?.finishedAt);
    if (!Number.isNaN(finished)) lastRestart = later(lastRestart, finished);
    const sidecar = restartable(initSpecs.get(c.name));
    if (sidecar) {
      sidecarRestarts += c.restartCount ?? 0;
      if (!Number.isNaN(finished)) lastSidecarRestart = later(lastSidecarRestart, finished);
    }
    const terminated = c.state?.terminated;
    const waiting = c.state?.waiting;
    if (terminated && (terminated.exitCode ?? 0) === 0) continue;
    if (sidecar && c.started === true) {
      if (c.ready) ready++;
      continue;
    }
    if (terminated) reason = terminatedReason(terminated, 'Init:');
    else if (waiting?.reason && waiting.reason !== 'PodInitializing') reason = `Init:${waiting.reason}`;
    else reason = `Init:${i}/${arr(spec.initContainers).length}`;
    initializing = true;
    break;
  }

  if (!initializing || conditionTrue(pod, 'Initialized')) {
    restarts = sidecarRestarts;
    lastRestart = lastSidecarRestart;
    let hasRunning = false;
    const statuses = arr(status.containerStatuses);
    for (let i = statuses.length - 1; i >= 0; i--) {
      const c = statuses[i];
      restarts += c.restartCount ?? 0;
      const finished = time(c.lastState?.terminated?.finishedAt);
      if (!Number.isNaN(finished)) lastRestart = later(lastRestart, finished);
      const { waiting, terminated, running } = c.state ?? {};
      if (waiting?.reason) reason = waiting.reason;
      else if (terminated) reason = terminatedReason(terminated, '');
      else if (c.ready && running) {
        hasRunning = true;
        ready++;
      }
    }
    if (reason === 'Completed' && hasRunning) reason = conditionTrue(pod, 'Ready') ? 'Running' : 'NotReady';
  }

  const terminal = status.phase === 'Succeeded' || status.phase === 'Failed';
  if (pod.metadata?.deletionTimestamp && status.reason === 'NodeLost') reason = 'Unknown';
  else if (pod.metadata?.deletionTimestamp && !terminal) reason = 'Terminating';

  const restartText =
    restarts !== 0 && !Number.isNaN(lastRestart)
      ? `${restarts} (${timestampSince(new Date(lastRestart).toISOString(), now)} ago)`
      : String(restarts);
  const gates = arr(spec.readinessGates);
  const gatesTrue = gates.filter((g) => {
    const c = arr(status.conditions).find((x) => x.type === g.conditionType);
    return c?.status === 'True';
  }).length;
  return [
    pod.metadata?.name,
    `${ready}/${total}`,
    reason,
    restartText,
    timestampSince(pod.metadata?.creationTimestamp, now),
    arr(status.podIPs)[0]?.ip || '<none>',
    spec.nodeName || '<none>',
    status.nominatedNodeName || '<none>',
    gates.length ? `${gatesTrue}/${gates.length}` : '<none>',
  ];
}
