// Hook tracking with API writes (upstream internal/hooks/tracking.go): the pending-hooks annotation is
// changed with a JSON merge patch, and only when it actually changes.
import { annotationsMergePatch, markAsDoneAnnotations, markAsPendingAnnotations } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import type { Client } from '@capi/controller-runtime';

async function patchAnnotations(client: Client, obj: KubeObject, next: Record<string, string>): Promise<void> {
  const mergePatch = annotationsMergePatch(obj.metadata.annotations, next);
  if (!mergePatch) return;
  const { name, namespace } = obj.metadata;
  if (!name) throw new Error(`cannot patch ${obj.kind} without metadata.name`);
  const updated = await client.patch<KubeObject>(
    { apiVersion: obj.apiVersion, kind: obj.kind, name, namespace },
    'merge',
    mergePatch,
  );
  // Write back what the server has, so the caller can e.g. wait for this resourceVersion in its cache.
  obj.metadata.annotations = updated.metadata.annotations ? { ...updated.metadata.annotations } : undefined;
  if (obj.metadata.annotations === undefined) delete obj.metadata.annotations;
  obj.metadata.resourceVersion = updated.metadata.resourceVersion;
}

/** Adds hooks to `runtime.cluster.x-k8s.io/pending-hooks`. Returns false (and makes no API call) when already pending. */
export async function markAsPending(client: Client, obj: KubeObject, ...hooks: string[]): Promise<boolean> {
  const { annotations, changed } = markAsPendingAnnotations(obj.metadata.annotations, ...hooks);
  if (!changed) return false;
  await patchAnnotations(client, obj, annotations);
  return true;
}

/** Removes `hook` from pending-hooks (annotation deleted when empty). Returns false (no API call) when not pending. */
export async function markAsDone(client: Client, obj: KubeObject, hook: string): Promise<boolean> {
  const { annotations, changed } = markAsDoneAnnotations(obj.metadata.annotations, hook);
  if (!changed) return false;
  await patchAnnotations(client, obj, annotations);
  return true;
}
