// Labels and annotations of objects a controller created from templates (InfraMachines, BootstrapConfigs), owned by a
// metadata field manager of their own (upstream MachineSet updateLabelsAndAnnotations, KCP updateExternalObject):
// the controller's apply manager creates the object, gives labels and annotations up, and the metadata manager then
// applies exactly the labels and annotations the owner wants, so a label removed from the template is removed too.
import { cloneJson, type KubeObject } from '@capi/apimachinery';
import type { Client } from '@capi/controller-runtime';
import type { ServerSideApplier } from './applier';
import { intentMemoKey } from './intent-memo';
import { migrateManagedFields, needsManagedFieldsMigration } from './managedfields';

export interface LabelsAndAnnotationsSync {
  /** The controller's apply field manager (e.g. capi-machineset): objects it created the old way are migrated once. */
  fieldManager: string;
  /** The field manager owning the labels and annotations (e.g. capi-machineset-metadata). */
  metadataFieldManager: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  /** What labels and annotations are computed from (the memo's inputs; the object's resourceVersion is added). */
  inputs: string;
}

/**
 * The metadata manager's intent: labels and annotations only, the uid pinned so the apply never creates the object.
 * An empty map is left out, as upstream's unstructured SetLabels / SetAnnotations do: applied, `{}` would make the
 * manager own the whole map as one value, so every annotation another manager adds or removes (cloned-from,
 * update-in-progress during an in-place update) would make the next, unchanged intent look like a change. Left out,
 * the manager's earlier keys are released all the same.
 */
export function labelsAndAnnotationsIntent(
  current: KubeObject,
  labels: Record<string, string>,
  annotations: Record<string, string>,
): KubeObject {
  const { name, namespace, uid } = current.metadata;
  return {
    apiVersion: current.apiVersion,
    kind: current.kind,
    metadata: {
      name,
      namespace,
      uid,
      ...(Object.keys(labels).length > 0 ? { labels: { ...labels } } : {}),
      ...(Object.keys(annotations).length > 0 ? { annotations: { ...annotations } } : {}),
    },
  };
}

/**
 * Applies the labels and annotations with the metadata field manager through the request cache (a no-op apply sends
 * nothing), after migrating managedFields of objects whose apply manager still owns labels (upstream
 * MigrateManagedFields). `current` may be a frozen cached object: it is copied before anything is written into it.
 */
export async function syncLabelsAndAnnotations(
  applier: ServerSideApplier,
  client: Client,
  current: KubeObject,
  sync: LabelsAndAnnotationsSync,
): Promise<void> {
  const memoFor = (obj: KubeObject) => intentMemoKey(obj, sync.inputs);
  if (applier.knownNoop(sync.metadataFieldManager, memoFor(current))) return;
  let original = current;
  if (needsManagedFieldsMigration(current.metadata.managedFields ?? [], sync.fieldManager)) {
    original = cloneJson(current);
    await migrateManagedFields(client, original, sync.fieldManager, sync.metadataFieldManager);
  }
  await applier.patch(client, labelsAndAnnotationsIntent(original, sync.labels, sync.annotations), {
    fieldOwner: sync.metadataFieldManager,
    original,
    memo: memoFor(original),
  });
}
