// The node lifecycle controller's NoSchedule taints (pure; kube pkg/controller/nodelifecycle doNoScheduleTaintingPass):
// a Node whose Ready condition is False gets node.kubernetes.io/not-ready, Unknown (or none) unreachable, a cordoned
// one node.kubernetes.io/unschedulable; they go when the condition does. A new Node carries not-ready from the API
// server's admission (TaintNodesByCondition) until this pass sees it Ready, so nothing is scheduled before.
import type { KubeObject } from '@capi/apimachinery';
import { refOf } from '@capi/controller-runtime';
import { isUnschedulable, taintsOf, UNSCHEDULABLE_TAINT_KEY, type Taint } from './scheduling';
import type { ClusterSnapshot, SimAction } from './types';

export const NOT_READY_TAINT_KEY = 'node.kubernetes.io/not-ready';
export const UNREACHABLE_TAINT_KEY = 'node.kubernetes.io/unreachable';
const MANAGED = [NOT_READY_TAINT_KEY, UNREACHABLE_TAINT_KEY, UNSCHEDULABLE_TAINT_KEY];

const readyStatus = (node: KubeObject): string =>
  ((node.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []).find(
    (c) => c.type === 'Ready',
  )?.status ?? 'Unknown';

/** The NoSchedule taints the controller wants on a Node (keys of MANAGED only). */
export function conditionTaints(node: KubeObject): Taint[] {
  const ready = readyStatus(node);
  return [
    ...(ready === 'False' ? [{ key: NOT_READY_TAINT_KEY, effect: 'NoSchedule' }] : []),
    ...(ready !== 'True' && ready !== 'False' ? [{ key: UNREACHABLE_TAINT_KEY, effect: 'NoSchedule' }] : []),
    ...(isUnschedulable(node) ? [{ key: UNSCHEDULABLE_TAINT_KEY, effect: 'NoSchedule' }] : []),
  ];
}

export function planNodeTaints(s: ClusterSnapshot): SimAction[] {
  const actions: SimAction[] = [];
  for (const node of s.nodes) {
    const taints = taintsOf(node);
    const managed = (t: Taint) => t.effect === 'NoSchedule' && MANAGED.includes(t.key);
    const want = conditionTaints(node);
    const have = taints.filter(managed);
    const same =
      want.length === have.length && want.every((w) => have.some((h) => h.key === w.key && h.effect === w.effect));
    if (same) continue;
    actions.push({
      op: 'patch',
      ref: refOf(node),
      patch: { spec: { taints: [...taints.filter((t) => !managed(t)), ...want] } },
    });
  }
  return actions;
}
