// `rollout plan -f FILE` of a KubeadmControlPlane: the KCP controller's own decisions (@capi/kcp planKcpRollout:
// up-to-date check, one-Machine-at-a-time rollout order, CanUpdateMachine through the registered extensions). The
// CanUpdateMachine request is built with server-side-apply dry-run patches (dryRun=All): the server persists nothing.
import { CONTROLPLANE_API_VERSION, type KubeadmControlPlane } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import { KcpPlanError, planKcpRollout, type KcpRolloutPlan } from '@capi/kcp';
import { mergeOverLive } from './plan-merge';
import { CliError, requestError, type Connection } from './kube';

export function formatKcpPlan(ref: string, plan: KcpRolloutPlan): string {
  const outcome = (o: KcpRolloutPlan['machines'][number]['outcome']) =>
    o.type === 'upToDate'
      ? 'up to date'
      : o.type === 'inPlace'
        ? `in place by ${o.updaters.length ? o.updaters.join(', ') : 'the registered updaters'}`
        : `replaced because ${o.reasons.length ? o.reasons.join('; ') : 'no updater covers the change'}`;
  const order =
    plan.maxSurge === 0
      ? 'maxSurge 0: an outdated Machine is updated in place or deleted first, then a new one is created'
      : 'maxSurge 1: a new Machine is created first, then the outdated ones are updated in place or deleted, oldest first';
  return [
    `KubeadmControlPlane ${ref}: ${plan.replicas} replicas, maxSurge ${plan.maxSurge}`,
    '',
    'Machines:',
    ...(plan.machines.length ? plan.machines.map((m) => `  Machine ${m.name}: ${outcome(m.outcome)}`) : ['  (none)']),
    '',
    `Planned steps (KCP rolls out one Machine at a time; ${order}; the control plane taken as healthy):`,
    ...(plan.steps.length ? plan.steps.map((s, i) => `  ${i + 1}. ${s}`) : ['  (nothing to do)']),
    ...(plan.incomplete ? [`(the plan did not complete: ${plan.incomplete})`] : []),
  ].join('\n');
}

export async function rolloutPlanKcp(
  conn: Connection,
  change: KubeObject,
  runtimeClient: Parameters<typeof planKcpRollout>[0]['runtimeClient'],
  now: () => Date,
): Promise<string> {
  const namespace = change.metadata.namespace ?? conn.namespace;
  const name = change.metadata.name ?? '';
  const what = `kubeadmcontrolplane "${name}"`;
  const live = await conn.api.tryGet<KubeadmControlPlane>({
    apiVersion: CONTROLPLANE_API_VERSION,
    kind: 'KubeadmControlPlane',
    name,
    namespace,
  });
  if (!live) throw new CliError(`${what} not found in namespace "${namespace}"`);
  // As for a MachineDeployment: FILE is a JSON merge patch over the live object.
  const kcp = mergeOverLive(live, change);
  try {
    const plan = await planKcpRollout({ client: conn.client, runtimeClient }, kcp, now());
    return formatKcpPlan(`${namespace}/${name}`, plan);
  } catch (e) {
    if (e instanceof KcpPlanError) throw new CliError(e.message);
    throw requestError(e, 'plan', what, conn.server);
  }
}
