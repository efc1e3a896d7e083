// The workload controllers of the simulated cluster (pure): what kube-controller-manager's deployment, replicaset
// and daemonset controllers would write for the snapshot (pkg/controller/deployment, replicaset, daemon), with the
// scheduler's binding folded into the Pod's creation (scheduling.ts): a Pod is created on its Node, or not at all
// while no Node fits (kube would create it Pending).
import { createHash } from 'node:crypto';
import { groupBy, type KubeObject } from '@capi/apimachinery';
import { refOf } from '@capi/controller-runtime';
import { daemonSetNodes, pickNode, type PodPlacement } from './scheduling';
import { controllerUid, isActive, isPodReady, nodeNameOf, podRef, type ClusterSnapshot, type SimAction } from './types';

/** Label of a ReplicaSet's Pods (kube's appsv1.DefaultDeploymentUniqueLabelKey). */
export const POD_TEMPLATE_HASH_LABEL = 'pod-template-hash';
/** Label of a DaemonSet's Pods (kube's appsv1.ControllerRevisionHashLabelKey). */
export const CONTROLLER_REVISION_HASH_LABEL = 'controller-revision-hash';

type Template = { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: any };
const spec = (o: KubeObject) => (o.spec ?? {}) as { replicas?: number; template?: Template; selector?: any };
const templateOf = (o: KubeObject): Template => spec(o).template ?? {};
const replicasOf = (o: KubeObject): number => spec(o).replicas ?? 1;

/** kube's rand.SafeEncodeString alphabet (no vowels, no look-alikes). */
const SAFE = 'bcdfghjklmnpqrstvwxz2456789';

/** A short, stable hash of a Pod template (kube hashes it with fnv and encodes it the same way). */
export function templateHash(template: unknown): string {
  const digest = createHash('sha256')
    .update(JSON.stringify(template ?? {}))
    .digest();
  return [...digest.subarray(0, 10)].map((b) => SAFE[b % SAFE.length]).join('');
}

const ownerRef = (owner: KubeObject) => ({
  apiVersion: owner.apiVersion,
  kind: owner.kind,
  name: owner.metadata.name!,
  uid: owner.metadata.uid!,
  controller: true,
  blockOwnerDeletion: true,
});

/** A snapshot list by its objects' controller uid, built once per list (a pass asks for each owner's objects). */
const byController = new WeakMap<readonly KubeObject[], Map<string, KubeObject[]>>();

/** The objects of `objs` whose controller is `owner` (read only: the index's own array). */
function ownedBy(objs: readonly KubeObject[], owner: KubeObject): readonly KubeObject[] {
  let index = byController.get(objs);
  if (!index) {
    index = groupBy(objs, controllerUid);
    byController.set(objs, index);
  }
  return index.get(owner.metadata.uid ?? '') ?? [];
}

/** A status action when one of `desired`'s fields differs from the object's status. */
function statusIfChanged(obj: KubeObject, desired: Record<string, unknown>): SimAction[] {
  const current = (obj.status ?? {}) as Record<string, unknown>;
  const changed = Object.entries(desired).some(([k, v]) => JSON.stringify(current[k] ?? 0) !== JSON.stringify(v));
  return changed ? [{ op: 'status', ref: refOf(obj), status: desired }] : [];
}

/** Deployments: one ReplicaSet per template (`<name>-<hash>`) at spec.replicas, older ones scaled to 0. */
export function planDeployments(s: ClusterSnapshot): SimAction[] {
  const actions: SimAction[] = [];
  for (const d of s.deployments) {
    if (d.metadata.deletionTimestamp) continue;
    const template = templateOf(d);
    const hash = templateHash(template);
    const name = `${d.metadata.name}-${hash}`;
    const owned = ownedBy(s.replicaSets, d);
    const current = owned.find((rs) => rs.metadata.name === name);
    const replicas = replicasOf(d);
    const labels = { ...template.metadata?.labels, [POD_TEMPLATE_HASH_LABEL]: hash };
    if (!current)
      actions.push({
        op: 'create',
        object: {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          metadata: { name, namespace: d.metadata.namespace, labels, ownerReferences: [ownerRef(d)] },
          spec: {
            replicas,
            selector: { matchLabels: { ...spec(d).selector?.matchLabels, [POD_TEMPLATE_HASH_LABEL]: hash } },
            template: { ...template, metadata: { ...template.metadata, labels } },
          },
        },
      });
    else if (replicasOf(current) !== replicas)
      actions.push({ op: 'patch', ref: refOf(current), patch: { spec: { replicas } } });
    for (const old of owned)
      if (old !== current && replicasOf(old) > 0)
        actions.push({ op: 'patch', ref: refOf(old), patch: { spec: { replicas: 0 } } });
    const pods = owned.flatMap((rs) => ownedBy(s.pods, rs)).filter(isActive);
    const updated = current ? ownedBy(s.pods, current).filter(isActive) : [];
    const ready = pods.filter(isPodReady).length;
    actions.push(
      ...statusIfChanged(d, {
        observedGeneration: d.metadata.generation ?? 1,
        replicas: pods.length,
        updatedReplicas: updated.length,
        readyReplicas: ready,
        availableReplicas: ready,
        unavailableReplicas: Math.max(0, replicas - ready),
      }),
    );
  }
  return actions;
}

/** Counts by Node name. */
function countByNode(pods: KubeObject[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const p of pods) {
    const n = nodeNameOf(p);
    if (n) out.set(n, (out.get(n) ?? 0) + 1);
  }
  return out;
}

/** The Pod a controller creates from its template, bound to `nodeName`. */
function podFor(owner: KubeObject, template: Template, nodeName: string, extra: { labels?: object; spec?: object }) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: `${owner.metadata.name}-`,
      namespace: owner.metadata.namespace,
      labels: { ...template.metadata?.labels, ...extra.labels },
      ...(template.metadata?.annotations ? { annotations: template.metadata.annotations } : {}),
      ownerReferences: [ownerRef(owner)],
    },
    spec: { ...template.spec, ...extra.spec, nodeName },
  } as KubeObject;
}

/**
 * ReplicaSets: Pods created on the Node the scheduler picks until spec.replicas are active; extra ones deleted (not
 * ready first, then the newest: kube's ActivePodsWithRanks, shortened). Pods created in this pass count for the
 * following picks, so a scale-up spreads.
 */
export function planReplicaSets(s: ClusterSnapshot): SimAction[] {
  const actions: SimAction[] = [];
  const podsPerNode = countByNode(s.pods.filter(isActive));
  for (const rs of s.replicaSets) {
    if (rs.metadata.deletionTimestamp) continue;
    const pods = ownedBy(s.pods, rs).filter(isActive);
    const want = replicasOf(rs);
    const template = templateOf(rs);
    const peers = countByNode(pods);
    for (let i = pods.length; i < want; i++) {
      const node = pickNode((template.spec ?? {}) as PodPlacement, s.nodes, peers, podsPerNode);
      if (!node) break;
      peers.set(node, (peers.get(node) ?? 0) + 1);
      podsPerNode.set(node, (podsPerNode.get(node) ?? 0) + 1);
      actions.push({ op: 'create', object: podFor(rs, template, node, {}) });
    }
    if (pods.length > want) {
      const rank = (p: KubeObject) => (isPodReady(p) ? 1 : 0);
      const victims = [...pods]
        .sort(
          (a, b) =>
            rank(a) - rank(b) ||
            (b.metadata.creationTimestamp ?? '').localeCompare(a.metadata.creationTimestamp ?? '') ||
            (b.metadata.name ?? '').localeCompare(a.metadata.name ?? ''),
        )
        .slice(0, pods.length - want);
      for (const p of victims) actions.push({ op: 'delete', ref: podRef(p), uid: p.metadata.uid });
    }
    const ready = pods.filter(isPodReady).length;
    actions.push(
      ...statusIfChanged(rs, {
        observedGeneration: rs.metadata.generation ?? 1,
        replicas: pods.length,
        fullyLabeledReplicas: pods.length,
        readyReplicas: ready,
        availableReplicas: ready,
      }),
    );
  }
  return actions;
}

/**
 * DaemonSets: one Pod on every Node it fits (cordoned ones included, as kube's daemon controller tolerates
 * unschedulable Nodes); a Pod of an older template is deleted and replaced once gone (a rolling update one Node at a
 * time is not simulated: all at once); Pods on Nodes it no longer fits are deleted.
 */
export function planDaemonSets(s: ClusterSnapshot): SimAction[] {
  const actions: SimAction[] = [];
  for (const ds of s.daemonSets) {
    if (ds.metadata.deletionTimestamp) continue;
    const template = templateOf(ds);
    const hash = templateHash(template);
    const eligible = daemonSetNodes((template.spec ?? {}) as PodPlacement, s.nodes);
    const eligibleNames = new Set(eligible.map((n) => n.metadata.name!));
    const owned = ownedBy(s.pods, ds);
    const ownedOnNode = groupBy(owned, (p) => nodeNameOf(p) || undefined);
    let current = 0;
    let ready = 0;
    let updated = 0;
    for (const node of eligible) {
      const onNode = ownedOnNode.get(node.metadata.name!) ?? [];
      const active = onNode.filter(isActive);
      const [keep, ...extra] = active.sort((a, b) =>
        (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? ''),
      );
      for (const p of extra) actions.push({ op: 'delete', ref: podRef(p), uid: p.metadata.uid });
      if (keep && keep.metadata.labels?.[CONTROLLER_REVISION_HASH_LABEL] !== hash)
        actions.push({ op: 'delete', ref: podRef(keep), uid: keep.metadata.uid });
      if (keep) {
        current++;
        if (isPodReady(keep)) ready++;
        if (keep.metadata.labels?.[CONTROLLER_REVISION_HASH_LABEL] === hash) updated++;
      }
      // A new Pod only once the old one is gone (terminating ones still run on the Node).
      if (onNode.length === 0)
        actions.push({
          op: 'create',
          object: podFor(ds, template, node.metadata.name!, {
            labels: { [CONTROLLER_REVISION_HASH_LABEL]: hash },
            spec: { tolerations: daemonPodTolerations(template.spec?.tolerations) },
          }),
        });
    }
    const misscheduled = owned.filter((p) => isActive(p) && !eligibleNames.has(nodeNameOf(p) ?? ''));
    for (const p of misscheduled) actions.push({ op: 'delete', ref: podRef(p), uid: p.metadata.uid });
    actions.push(
      ...statusIfChanged(ds, {
        observedGeneration: ds.metadata.generation ?? 1,
        desiredNumberScheduled: eligible.length,
        currentNumberScheduled: current,
        numberMisscheduled: misscheduled.length,
        numberReady: ready,
        numberAvailable: ready,
        updatedNumberScheduled: updated,
      }),
    );
  }
  return actions;
}

/** The tolerations kube's daemon controller adds to every DaemonSet Pod (util.AddOrUpdateDaemonPodTolerations). */
export function daemonPodTolerations(own: unknown): unknown[] {
  const added = [
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
    { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
  ];
  const list = Array.isArray(own) ? (own as { key?: string; effect?: string }[]) : [];
  return [...list, ...added.filter((a) => !list.some((t) => t.key === a.key && t.effect === a.effect))];
}
