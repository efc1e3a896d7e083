// pods/eviction: the EvictionREST of kube-apiserver (kubernetes pkg/registry/core/pod/storage/eviction.go). A policy/v1
// Eviction deletes its Pod when the Pod's PodDisruptionBudget allows a disruption (and records it in the budget's
// status for the disruption controller), or at once when no budget applies.
import { formatTime, labelSelectorAsSelector, type KubeObject, type Status } from '@capi/apimachinery';
import type { Registry } from './registry';
import type { DeleteOpts, Resources } from './resources';
import { badRequest, StatusError, statusObject } from './status';
import { disruptionAllowedCondition, podReady } from '../disruption/status';

type Obj = Record<string, any>;

/** Above this many unconfirmed evictions a budget refuses more (eviction.go MaxDisruptedPodSize). */
export const MAX_DISRUPTED_POD_SIZE = 2000;
const DISRUPTION_BUDGET_CAUSE = 'DisruptionBudget';
const VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget.";

function tooManyRequests(retryAfterSeconds: number, cause: string): StatusError {
  return new StatusError(429, VIOLATION, 'TooManyRequests', {
    causes: [{ reason: DISRUPTION_BUDGET_CAUSE, message: cause }],
    ...(retryAfterSeconds ? { retryAfterSeconds } : {}),
  });
}

const forbidden = (name: string, why: string) =>
  new StatusError(403, `poddisruptionbudget.policy "${name}" is forbidden: ${why}`, 'Forbidden', {
    name,
    group: 'policy',
    kind: 'poddisruptionbudget',
    causes: [
      {
        reason: DISRUPTION_BUDGET_CAUSE,
        message: `The disruption budget ${name} does not allow evicting pods currently: ${why}`,
      },
    ],
  });

/** Why a budget with no disruption left refuses: a failed sync first (its counts are not to be trusted), then the counts. */
function deniedMessage(name: string, status: Obj): string {
  const conditions: Obj[] = Array.isArray(status.conditions) ? status.conditions : [];
  const c = conditions.find((x) => x?.type === 'DisruptionAllowed');
  const explained = c && c.status === 'False' && typeof c.message === 'string' && c.message.length > 0;
  if (explained && c.reason === 'SyncFailed')
    return `The disruption budget ${name} does not allow evicting pods currently because it failed sync: ${c.message}`;
  if ((status.currentHealthy ?? 0) <= (status.desiredHealthy ?? 0))
    return `The disruption budget ${name} needs ${status.desiredHealthy ?? 0} healthy pods and has ${status.currentHealthy ?? 0} currently`;
  if (explained)
    return `The disruption budget ${name} does not allow evicting pods currently (${c.reason}): ${c.message}`;
  return `The disruption budget ${name} does not allow evicting pods currently`;
}

/** canIgnorePDB: a terminal, Pending or terminating Pod is deleted without looking at budgets. */
const canIgnorePdb = (pod: KubeObject) => {
  const phase = (pod.status as Obj | undefined)?.phase;
  return phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || !!pod.metadata.deletionTimestamp;
};

/** propagateDryRun: the request's dryRun and the Eviction's deleteOptions.dryRun must agree when both are set. */
function deleteOptionsOf(eviction: Obj, queryDryRun: string[]): Obj {
  const options: Obj =
    eviction.deleteOptions && typeof eviction.deleteOptions === 'object' ? eviction.deleteOptions : {};
  const bodyDryRun: string[] = Array.isArray(options.dryRun) ? options.dryRun : [];
  if (!bodyDryRun.length) return { ...options, dryRun: queryDryRun };
  if (queryDryRun.length && JSON.stringify(queryDryRun) !== JSON.stringify(bodyDryRun))
    throw new StatusError(
      500,
      `Non-matching dry-run options in request and content: [${queryDryRun.join(' ')}] and [${bodyDryRun.join(' ')}]`,
      '',
    );
  return options;
}

/** The PDBs of the Pod's namespace whose selector matches it (policy/v1: an empty selector matches every Pod, a nil or invalid one none). */
function matchingPdbs(resources: Resources, registry: Registry, pod: KubeObject): KubeObject[] {
  const info = registry.lookup('policy', 'v1', 'poddisruptionbudgets')!;
  const items = resources.list(info, pod.metadata.namespace).items as KubeObject[];
  return items.filter((pdb) => {
    const sel = (pdb.spec as Obj | undefined)?.selector;
    try {
      return labelSelectorAsSelector(sel).matches(pod.metadata.labels);
    } catch {
      return false;
    }
  });
}

export interface EvictionRequest {
  namespace: string;
  name: string;
  body: unknown;
  /** The request's dryRun query values. */
  dryRun: string[];
  now: Date;
}

/** Serves POST pods/{name}/eviction: the Success Status kube answers (201), or a StatusError. */
export function evict(resources: Resources, registry: Registry, req: EvictionRequest): Status {
  const eviction = req.body as Obj;
  if (!eviction || typeof eviction !== 'object' || Array.isArray(eviction))
    throw badRequest('the request body must be a JSON object');
  if (eviction.kind !== undefined && eviction.kind !== 'Eviction')
    throw badRequest(`not a Eviction object: ${String(eviction.kind)}`);
  const meta: Obj = eviction.metadata ?? {};
  if (meta.namespace && meta.namespace !== req.namespace)
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  if (req.name !== meta.name) throw badRequest('name in URL does not match name in Eviction object');
  const options = deleteOptionsOf(eviction, req.dryRun);
  const dryRun = (options.dryRun as string[]).includes('All');
  const podInfo = registry.lookup('', 'v1', 'pods')!;
  const pod = resources.get(podInfo, req.namespace, req.name);
  const remove = (o: Obj) => {
    const opts: DeleteOpts = {
      gracePeriodSeconds: typeof o.gracePeriodSeconds === 'number' ? o.gracePeriodSeconds : undefined,
      propagationPolicy: o.propagationPolicy,
      orphanDependents: typeof o.orphanDependents === 'boolean' ? o.orphanDependents : undefined,
      preconditions: o.preconditions,
      dryRun,
    };
    resources.delete(podInfo, req.namespace, req.name, opts);
  };
  const success = statusObject({ status: 'Success', code: 201 });
  if (canIgnorePdb(pod)) {
    remove(options);
    return success;
  }
  const pdbs = matchingPdbs(resources, registry, pod);
  if (pdbs.length > 1)
    throw new StatusError(
      500,
      'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
      '',
    );
  if (pdbs.length === 1) {
    const pdb = pdbs[0];
    const spec: Obj = (pdb.spec as Obj) ?? {};
    const status: Obj = (pdb.status as Obj) ?? {};
    // An unhealthy Pod does not count towards the budget: deleted without using a disruption when the policy says
    // AlwaysAllow, or when the budget is met anyway (default IfHealthyBudget).
    const unhealthyGoes =
      !podReady(pod) &&
      (spec.unhealthyPodEvictionPolicy === 'AlwaysAllow' ||
        ((status.currentHealthy ?? 0) >= (status.desiredHealthy ?? 0) && (status.desiredHealthy ?? 0) > 0));
    if (!unhealthyGoes) checkAndDecrement(resources, registry, pdb, pod.metadata.name!, dryRun, req.now);
  }
  remove(options);
  return success;
}

/** checkAndDecrement: refuses when the budget is stale, negative, overfull or used up; else takes one disruption. */
function checkAndDecrement(
  resources: Resources,
  registry: Registry,
  pdb: KubeObject,
  podName: string,
  dryRun: boolean,
  now: Date,
): void {
  const name = pdb.metadata.name!;
  const status: Obj = { ...((pdb.status as Obj) ?? {}) };
  if ((status.observedGeneration ?? 0) < (pdb.metadata.generation ?? 0))
    throw tooManyRequests(10, `The disruption budget ${name} is still being processed by the server.`);
  const allowed: number = status.disruptionsAllowed ?? 0;
  if (allowed < 0) throw forbidden(name, 'pdb disruptions allowed is negative');
  if (Object.keys(status.disruptedPods ?? {}).length > MAX_DISRUPTED_POD_SIZE)
    throw forbidden(name, 'DisruptedPods map too big - too many evictions not confirmed by PDB controller');
  if (allowed === 0) throw tooManyRequests(0, deniedMessage(name, status));
  status.disruptionsAllowed = allowed - 1;
  if (status.disruptionsAllowed === 0) status.conditions = disruptionAllowedCondition(status, now);
  if (dryRun) return;
  status.disruptedPods = { ...(status.disruptedPods ?? {}), [podName]: formatTime(now) };
  const info = registry.lookup('policy', 'v1', 'poddisruptionbudgets')!;
  resources.update(
    info,
    pdb.metadata.namespace!,
    name,
    { ...pdb, status },
    { subresource: 'status', fieldManager: 'kube-apiserver' },
  );
}
