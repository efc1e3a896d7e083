// Where the simulated workload cluster's scheduler puts a Pod (pure). Filters as kube-scheduler's default plugins do
// for what the simulation uses (pkg/scheduler/framework/plugins: nodeunschedulable, tainttoleration, nodeaffinity's
// nodeSelector, and the Node's Ready condition the node lifecycle controller turns into a not-ready taint); scores
// first by the fewest (tolerated) taints, so a workload that tolerates control-plane Nodes lands on workers when there
// are any (a choice of this simulation, not kube's), then by spreading a controller's Pods (podtopologyspread's
// default constraints).
import type { KubeObject } from '@capi/apimachinery';

export interface Taint {
  key: string;
  value?: string;
  effect: string;
}

export interface Toleration {
  key?: string;
  operator?: 'Exists' | 'Equal';
  value?: string;
  effect?: string;
}

/** The taint the node controller puts on a cordoned Node (kube's TaintNodeUnschedulable). */
export const UNSCHEDULABLE_TAINT_KEY = 'node.kubernetes.io/unschedulable';

const nodeSpec = (node: KubeObject) => (node.spec ?? {}) as { unschedulable?: boolean; taints?: Taint[] };

export const taintsOf = (node: KubeObject): Taint[] => nodeSpec(node).taints ?? [];

export const isUnschedulable = (node: KubeObject): boolean => nodeSpec(node).unschedulable === true;

export const isReadyNode = (node: KubeObject): boolean =>
  ((node.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []).some(
    (c) => c.type === 'Ready' && c.status === 'True',
  );

/** v1 Toleration.ToleratesTaint (k8s.io/api/core/v1/toleration.go). */
export function toleratesTaint(t: Toleration, taint: Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  if (t.operator === 'Exists') return true;
  // An empty key with Exists tolerates everything (above); Equal (the default) compares values.
  return !!t.key && (t.value ?? '') === (taint.value ?? '');
}

/** Taints with NoSchedule/NoExecute effect the Pod does not tolerate. */
export const untoleratedTaints = (tolerations: Toleration[], taints: Taint[]): Taint[] =>
  taints.filter(
    (taint) =>
      (taint.effect === 'NoSchedule' || taint.effect === 'NoExecute') &&
      !tolerations.some((t) => toleratesTaint(t, taint)),
  );

export interface PodPlacement {
  tolerations?: Toleration[];
  nodeSelector?: Record<string, string>;
}

/** Why a Node cannot take a new Pod, or undefined when it can. */
export function unfitReason(pod: PodPlacement, node: KubeObject): string | undefined {
  const tolerations = pod.tolerations ?? [];
  const unschedulableTaint = { key: UNSCHEDULABLE_TAINT_KEY, effect: 'NoSchedule' };
  if (isUnschedulable(node) && !tolerations.some((t) => toleratesTaint(t, unschedulableTaint)))
    return 'node(s) were unschedulable';
  if (!isReadyNode(node)) return 'node(s) were not ready';
  const labels = node.metadata.labels ?? {};
  if (Object.entries(pod.nodeSelector ?? {}).some(([k, v]) => labels[k] !== v))
    return "node(s) didn't match Pod's node affinity/selector";
  if (untoleratedTaints(tolerations, taintsOf(node)).length > 0) return 'node(s) had untolerated taint';
  return undefined;
}

/**
 * The Node for a new Pod of a controller: among the Nodes that fit, the one with the fewest taints, then the fewest Pods
 * of the same controller (`peers`: node name → count), then the fewest Pods, then by name (deterministic).
 * Undefined when none fits (the Pod would stay Pending).
 */
export function pickNode(
  pod: PodPlacement,
  nodes: KubeObject[],
  peers: ReadonlyMap<string, number>,
  podsPerNode: ReadonlyMap<string, number> = new Map(),
): string | undefined {
  const fit = nodes.filter((n) => !n.metadata.deletionTimestamp && unfitReason(pod, n) === undefined);
  const score = (n: KubeObject) =>
    [taintsOf(n).length, peers.get(n.metadata.name!) ?? 0, podsPerNode.get(n.metadata.name!) ?? 0] as const;
  fit.sort((a, b) => {
    const [sa, sb] = [score(a), score(b)];
    for (let i = 0; i < sa.length; i++) if (sa[i] !== sb[i]) return sa[i] - sb[i];
    return a.metadata.name! < b.metadata.name! ? -1 : 1;
  });
  return fit[0]?.metadata.name;
}

/** Nodes a DaemonSet Pod runs on: those it fits, cordoned or not (pkg/controller/daemon adds the unschedulable and
 * not-ready tolerations to every DaemonSet Pod: util.AddOrUpdateDaemonPodTolerations). */
export function daemonSetNodes(pod: PodPlacement, nodes: KubeObject[]): KubeObject[] {
  const tolerations: Toleration[] = [
    ...(pod.tolerations ?? []),
    { key: UNSCHEDULABLE_TAINT_KEY, operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
  ];
  return nodes.filter((n) => {
    if (n.metadata.deletionTimestamp) return false;
    const labels = n.metadata.labels ?? {};
    if (Object.entries(pod.nodeSelector ?? {}).some(([k, v]) => labels[k] !== v)) return false;
    return untoleratedTaints(tolerations, taintsOf(n)).length === 0;
  });
}
