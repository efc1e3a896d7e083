// Pods, DaemonSets and PodDisruptionBudgets in the workload cluster of the Machine tests (the envtest server itself),
// and the test playing the parts a real cluster has but an API server alone lacks: the kubelet (finishing terminating
// Pods with grace 0) and, on kube-apiserver, kube-controller-manager's disruption controller (the embedded server
// runs its own).
import type { KubeObject } from '@capi/apimachinery';
import type { KubeClient } from '@capi/controller-runtime';
import { eventually, type Envtest } from '@capi/envtest';

export interface PodOptions {
  namespace?: string;
  nodeName?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  /**
   * Controller ownerReference. Give the owner's uid when it exists: the embedded server's garbage collector deletes
   * Pods whose owner (by uid) is gone, as kube-controller-manager's does.
   */
  controller?: { apiVersion?: string; kind: string; name: string; uid?: string };
  emptyDir?: boolean;
  /** Written to the status subresource; Running Pods are Ready. Default Running. */
  phase?: 'Pending' | 'Running' | 'Succeeded' | 'Failed';
  finalizers?: string[];
}

export async function createPod(c: KubeClient, name: string, o: PodOptions = {}): Promise<KubeObject> {
  const created = await c.create<KubeObject>({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: o.namespace ?? 'default',
      ...(o.labels ? { labels: o.labels } : {}),
      ...(o.annotations ? { annotations: o.annotations } : {}),
      ...(o.finalizers ? { finalizers: o.finalizers } : {}),
      ...(o.controller
        ? {
            ownerReferences: [
              {
                apiVersion: o.controller.apiVersion ?? 'apps/v1',
                kind: o.controller.kind,
                name: o.controller.name,
                uid: o.controller.uid ?? '6b4a1d0e-0000-4000-8000-000000000001',
                controller: true,
              },
            ],
          }
        : {}),
    },
    spec: {
      ...(o.nodeName ? { nodeName: o.nodeName } : {}),
      containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }],
      ...(o.emptyDir ? { volumes: [{ name: 'scratch', emptyDir: {} }] } : {}),
    },
  });
  const phase = o.phase ?? 'Running';
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  // A merge patch, not an update: the server's own controllers may have written the Pod meanwhile.
  return c.patch<KubeObject>(
    { apiVersion: 'v1', kind: 'Pod', namespace: created.metadata.namespace, name },
    'merge',
    {
      status: {
        phase,
        conditions: [
          { type: 'Ready', status: phase === 'Running' ? 'True' : 'False', lastTransitionTime: now },
          { type: 'PodScheduled', status: 'True', lastTransitionTime: now },
        ],
      },
    },
    { subresource: 'status' },
  );
}

/** An apps/v1 DaemonSet or Deployment (nothing runs it: its Pods are created by the test); returns its uid. */
export async function createWorkload(
  c: KubeClient,
  kind: 'DaemonSet' | 'Deployment',
  namespace: string,
  name: string,
): Promise<string> {
  const labels = { app: name };
  const created = await c.create<KubeObject>({
    apiVersion: 'apps/v1',
    kind,
    metadata: { name, namespace },
    spec: {
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] } },
    },
  });
  return created.metadata.uid!;
}

/**
 * A policy/v1 PodDisruptionBudget over `matchLabels` with minAvailable; its status is up to date once this returns
 * (on kube-apiserver the test writes it as the disruption controller would, from `healthy` Ready Pods).
 */
export async function createPdb(
  env: Envtest,
  c: KubeClient,
  namespace: string,
  name: string,
  matchLabels: Record<string, string>,
  minAvailable: number,
  healthy: number,
): Promise<void> {
  const pdb = await c.create<KubeObject>({
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name, namespace },
    spec: { minAvailable, selector: { matchLabels } },
  });
  const ref = { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', namespace, name };
  if (env.target === 'kube') {
    await c.updateStatus({
      ...pdb,
      status: {
        observedGeneration: pdb.metadata.generation,
        currentHealthy: healthy,
        desiredHealthy: minAvailable,
        expectedPods: healthy,
        disruptionsAllowed: Math.max(0, healthy - minAvailable),
      },
    });
  }
  await eventually(async () => {
    const s = (await c.get<KubeObject>(ref)).status as { observedGeneration?: number; currentHealthy?: number };
    return s?.observedGeneration === pdb.metadata.generation && s.currentHealthy === healthy;
  }, `PodDisruptionBudget ${namespace}/${name} status`);
}

/** The kubelet's part: Pods with a deletionTimestamp on `nodeName` are deleted with grace 0. Returns their names. */
export async function finishTerminatingPods(c: KubeClient, nodeName: string): Promise<string[]> {
  const pods = await c.list('v1', 'Pod', { fieldSelector: `spec.nodeName=${nodeName}` });
  const done: string[] = [];
  for (const p of pods.items.filter((x) => x.metadata.deletionTimestamp)) {
    await c
      .delete(
        { apiVersion: 'v1', kind: 'Pod', namespace: p.metadata.namespace, name: p.metadata.name! },
        {
          gracePeriodSeconds: 0,
        },
      )
      .catch(() => undefined);
    done.push(p.metadata.name!);
  }
  return done;
}

/** Names of the Pods (all namespaces) bound to `nodeName`. */
export async function podsOnNode(c: KubeClient, nodeName: string): Promise<string[]> {
  const pods = await c.list('v1', 'Pod', { fieldSelector: `spec.nodeName=${nodeName}` });
  return pods.items.map((p) => p.metadata.name!).sort();
}
