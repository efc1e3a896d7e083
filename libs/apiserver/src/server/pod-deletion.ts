// Graceful deletion of Pods as kube-apiserver does it: the pod strategy's CheckGracefulDelete
// (pkg/registry/core/pod/strategy.go) and rest.BeforeDelete (staging/src/k8s.io/apiserver/pkg/registry/rest/delete.go),
// as pure rules. Only Pods delete gracefully here, as in kube.
import { formatTime, type KubeObject } from '@capi/apimachinery';

type Obj = Record<string, any>;

/** What a DELETE does before finalizers are looked at. */
export type GracefulDecision =
  /** Not graceful: the ordinary finalizer / remove path. */
  | { kind: 'immediate' }
  /** Already terminating with a grace period no shorter than asked: nothing changes (kube answers the object). */
  | { kind: 'pending' }
  /** deletionTimestamp and deletionGracePeriodSeconds set (or shortened) on `obj`; `grace` 0 removes it at once. */
  | { kind: 'graceful'; obj: KubeObject; grace: number };

export const DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS = 30;

/**
 * CheckGracefulDelete: the grace period of a Pod's deletion. DeleteOptions.gracePeriodSeconds when given, else
 * spec.terminationGracePeriodSeconds (kube defaults it to 30 on create; this server keeps what the client sent, so 30
 * stands in for an unset one); 0 for a Pod not bound to a Node or already Succeeded/Failed; negative means 1.
 */
export function podGracePeriod(pod: KubeObject, requested: number | undefined): number {
  const spec: Obj = (pod.spec as Obj) ?? {};
  const phase = (pod.status as Obj | undefined)?.phase;
  let period =
    requested ??
    (typeof spec.terminationGracePeriodSeconds === 'number'
      ? spec.terminationGracePeriodSeconds
      : DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS);
  if (!spec.nodeName) period = 0;
  if (phase === 'Failed' || phase === 'Succeeded') period = 0;
  return period < 0 ? 1 : period;
}

const plusSeconds = (t: Date, s: number) => formatTime(new Date(t.getTime() + s * 1000));

/** rest.BeforeDelete for a Pod, at `now`, with DeleteOptions.gracePeriodSeconds `requested` (undefined when unset). */
export function podBeforeDelete(pod: KubeObject, requested: number | undefined, now: Date): GracefulDecision {
  if (requested !== undefined && requested < 0) requested = 1;
  const m = pod.metadata;
  if (m.deletionTimestamp) {
    const current = m.deletionGracePeriodSeconds;
    // Deletion already under way without a grace period (or one run to 0): delete now.
    if (current === undefined || current === null || current <= 0) return { kind: 'immediate' };
    // Only a shorter grace period may be given; the deadline moves by the difference.
    if (requested === undefined || requested >= current) return { kind: 'pending' };
    const start = new Date(Date.parse(m.deletionTimestamp) - current * 1000);
    const obj = structuredClone(pod);
    obj.metadata.deletionTimestamp = plusSeconds(start, requested);
    obj.metadata.deletionGracePeriodSeconds = requested;
    return { kind: 'graceful', obj, grace: requested };
  }
  const grace = podGracePeriod(pod, requested);
  const obj = structuredClone(pod);
  obj.metadata.deletionTimestamp = plusSeconds(now, grace);
  obj.metadata.deletionGracePeriodSeconds = grace;
  if ((obj.metadata.generation ?? 0) > 0) obj.metadata.generation = obj.metadata.generation! + 1;
  return { kind: 'graceful', obj, grace };
}
