// `rollout status md|kcp NAME`: follows the object and its Machines through watches (list, then watch from the list's
// resourceVersion; a watch that ends is resumed from a fresh list), prints the progress (redrawn in place on a TTY,
// one line per change otherwise) and ends on done (0), on no progress for the stall timeout (1, with the blocking
// conditions) or on --timeout (1).
import {
  CLUSTER_API_VERSION,
  CONTROLPLANE_API_VERSION,
  MACHINE_CONTROL_PLANE_NAME_LABEL,
  MACHINE_DEPLOYMENT_NAME_LABEL,
  type Machine,
} from '@capi/api';
import { humanDuration, type KubeObject } from '@capi/apimachinery';
import type { WatchHandle } from '@capi/controller-runtime';
import { CliError, type Connection } from './kube';
import {
  blockingConditions,
  estimateRemainingMs,
  formatProgress,
  isRolloutDone,
  progressKey,
  rolloutProgress,
  rolloutStart,
  type RolloutStart,
  type RolloutTarget,
} from './progress';

export interface RolloutStatusOptions {
  kind: 'MachineDeployment' | 'KubeadmControlPlane';
  name: string;
  timeoutMs?: number;
  stallTimeoutMs: number;
  out: { write(s: string): void; isTTY?: boolean };
  /** Where a stall, a timeout or a deletion is reported (the `error:` line and the blocking conditions). */
  err: { write(s: string): void };
  now?: () => number;
}

const SHORT: Record<RolloutStatusOptions['kind'], string> = { MachineDeployment: 'md', KubeadmControlPlane: 'kcp' };

export async function rolloutStatus(conn: Connection, o: RolloutStatusOptions): Promise<number> {
  const now = o.now ?? Date.now;
  const { api, namespace } = conn;
  const apiVersion = o.kind === 'MachineDeployment' ? CLUSTER_API_VERSION : CONTROLPLANE_API_VERSION;
  const label = o.kind === 'MachineDeployment' ? MACHINE_DEPLOYMENT_NAME_LABEL : MACHINE_CONTROL_PLANE_NAME_LABEL;
  const machineSelector = { namespace, labelSelector: `${label}=${o.name}` };
  const what = `${SHORT[o.kind]} "${o.name}"`;

  let target = await api.tryGet<KubeObject & RolloutTarget>({ apiVersion, kind: o.kind, name: o.name, namespace });
  if (!target) throw new CliError(`${o.kind.toLowerCase()} "${o.name}" not found in namespace "${namespace}"`);
  const machines = new Map<string, Machine>();
  const first = await api.list<Machine>(CLUSTER_API_VERSION, 'Machine', machineSelector);
  for (const m of first.items) machines.set(m.metadata.uid ?? m.metadata.name ?? '', m);
  const start: RolloutStart = rolloutStart([...machines.values()], now());

  return new Promise<number>((resolve, reject) => {
    const handles: WatchHandle[] = [];
    const timers: NodeJS.Timeout[] = [];
    let lastKey = '';
    let lastLine = '';
    let stallTimer: NodeJS.Timeout | undefined;
    let finished = false;
    const finish = (code: number, message?: string) => {
      if (finished) return;
      finished = true;
      for (const h of handles) h.stop();
      for (const t of timers) clearTimeout(t);
      if (stallTimer) clearTimeout(stallTimer);
      if (o.out.isTTY && lastLine) o.out.write('\n');
      if (message) (code === 0 ? o.out : o.err).write(`${message}\n`);
      resolve(code);
    };
    const fail = (e: unknown) => {
      if (finished) return;
      finished = true;
      for (const h of handles) h.stop();
      for (const t of timers) clearTimeout(t);
      if (stallTimer) clearTimeout(stallTimer);
      if (o.out.isTTY && lastLine) o.out.write('\n');
      reject(e);
    };
    const blocking = () => {
      const lines = blockingConditions(target!, [...machines.values()]);
      return lines.length ? lines.map((l) => `  ${l}`).join('\n') : '  no condition explains it';
    };
    const armStall = () => {
      if (stallTimer) clearTimeout(stallTimer);
      stallTimer = setTimeout(() => {
        if (o.out.isTTY && lastLine) o.out.write('\n');
        lastLine = '';
        finish(
          1,
          `error: ${what} rollout stalled: no progress for ${humanDuration(o.stallTimeoutMs)}; blocking:\n${blocking()}`,
        );
      }, o.stallTimeoutMs);
    };
    const update = () => {
      if (finished || !target) return;
      const list = [...machines.values()];
      const p = rolloutProgress(target, list, start);
      const key = progressKey(p, target);
      const line = formatProgress(p, estimateRemainingMs(p, start, now()));
      if (key !== lastKey) {
        lastKey = key;
        armStall();
      }
      if (line !== lastLine) {
        o.out.write(o.out.isTTY ? `\r\x1b[K${line}` : `${line}\n`);
        lastLine = line;
      }
      if (isRolloutDone(target, list)) finish(0, `${what} successfully rolled out`);
    };
    if (target?.metadata.deletionTimestamp) return finish(1, `error: ${what} is being deleted`);
    if (o.timeoutMs !== undefined)
      timers.push(
        setTimeout(() => {
          if (o.out.isTTY && lastLine) o.out.write('\n');
          lastLine = '';
          finish(
            1,
            `error: timed out after ${humanDuration(o.timeoutMs!)} waiting for ${what}; blocking:\n${blocking()}`,
          );
        }, o.timeoutMs),
      );

    // Each watch resumes from a fresh list when the server ends it (timeouts, 410 Gone).
    const follow = async (kind: 'target' | 'machines', resourceVersion: string | undefined): Promise<void> => {
      while (!finished) {
        const h =
          kind === 'target'
            ? await api.watch<KubeObject & RolloutTarget>(apiVersion, o.kind, { namespace, resourceVersion }, (ev) => {
                if (ev.object.metadata?.name !== o.name) return;
                if (ev.type === 'DELETED') return finish(1, `error: ${what} was deleted`);
                if (ev.type === 'ADDED' || ev.type === 'MODIFIED') {
                  target = ev.object;
                  update();
                }
              })
            : await api.watch<Machine>(
                CLUSTER_API_VERSION,
                'Machine',
                { ...machineSelector, resourceVersion },
                (ev) => {
                  const id = ev.object.metadata?.uid ?? ev.object.metadata?.name ?? '';
                  if (ev.type === 'DELETED') machines.delete(id);
                  else if (ev.type === 'ADDED' || ev.type === 'MODIFIED') machines.set(id, ev.object);
                  else return;
                  update();
                },
              );
        handles.push(h);
        await h.done.catch(() => undefined);
        if (finished) return;
        if (kind === 'target') {
          target = await api.tryGet<KubeObject & RolloutTarget>({ apiVersion, kind: o.kind, name: o.name, namespace });
          if (!target) return finish(1, `error: ${what} was deleted`);
          resourceVersion = undefined;
        } else {
          const again = await api.list<Machine>(CLUSTER_API_VERSION, 'Machine', machineSelector);
          machines.clear();
          for (const m of again.items) machines.set(m.metadata.uid ?? m.metadata.name ?? '', m);
          resourceVersion = again.metadata.resourceVersion;
        }
        update();
      }
    };
    update();
    follow('target', undefined).catch(fail);
    follow('machines', first.metadata.resourceVersion).catch(fail);
  });
}
