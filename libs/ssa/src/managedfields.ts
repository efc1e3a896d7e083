// managedFields helpers used around in-place updates (learned from upstream
// internal/util/ssa/managedfields.go and managedfieldsmitigation.go).
//
// MachineSet/KCP create BootstrapConfig/InfraMachine with their apply field manager owning everything, then hand
// labels/annotations over to a metadata field manager. Without dropping the first manager's ownership, a later SSA
// by the metadata manager could not remove a label (it would stay co-owned).
import { formatTime, type KubeObject, type ManagedFieldsEntry } from '@capi/apimachinery';
import { isConflict, refOf, type Client } from '@capi/controller-runtime';

export type FieldsV1 = Record<string, unknown>;

/** Upstream "classic" controller-runtime manager name of pre-SSA Update entries. */
export const CLASSIC_MANAGER = 'manager';
/** Manager name the API server invents when it meets an object without managedFields on its first apply. */
export const BEFORE_FIRST_APPLY_MANAGER = 'before-first-apply';
/** Placeholder ownership (metadata.name): an entry cannot be empty; the manager's next apply replaces it. */
export const SEED_FIELDS_V1: FieldsV1 = { 'f:metadata': { 'f:name': {} } };

const LABELS_AND_ANNOTATIONS: readonly (readonly string[])[] = [
  ['f:metadata', 'f:labels'],
  ['f:metadata', 'f:annotations'],
];

const isMap = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Removes the given FieldsV1 paths (e.g. ["f:metadata","f:labels"]) from a copy of `fieldsV1`. Parents left empty
 * are removed as well: in FieldsV1 an empty `{}` would claim the parent itself as an owned leaf.
 */
export function removeFieldsV1Paths(
  fieldsV1: FieldsV1,
  paths: readonly (readonly string[])[],
): { fieldsV1: FieldsV1; removed: boolean } {
  const out = structuredClone(fieldsV1);
  let removed = false;
  for (const path of paths) {
    const chain: Record<string, unknown>[] = [out];
    for (const key of path.slice(0, -1)) {
      const next = chain[chain.length - 1][key];
      if (!isMap(next)) break;
      chain.push(next);
    }
    if (chain.length !== path.length) continue;
    const last = path[path.length - 1];
    if (!(last in chain[chain.length - 1])) continue;
    delete chain[chain.length - 1][last];
    removed = true;
    for (let i = chain.length - 1; i > 0; i--) {
      if (Object.keys(chain[i]).length > 0) break;
      delete chain[i - 1][path[i - 1]];
    }
  }
  return { fieldsV1: out, removed };
}

const isApplyEntryOf = (manager: string) => (e: ManagedFieldsEntry) =>
  e.manager === manager && e.operation === 'Apply' && !e.subresource;

/**
 * managedFields with the labels/annotations ownership of `fieldManager`'s Apply entry dropped, or undefined when
 * that manager owns none (nothing to write).
 */
export function dropLabelsAndAnnotationsOwnership(
  entries: ManagedFieldsEntry[],
  fieldManager: string,
): ManagedFieldsEntry[] | undefined {
  let changed = false;
  const out = entries.map((e) => {
    if (!isApplyEntryOf(fieldManager)(e) || !e.fieldsV1) return e;
    const { fieldsV1, removed } = removeFieldsV1Paths(e.fieldsV1, LABELS_AND_ANNOTATIONS);
    if (!removed) return e;
    changed = true;
    return { ...e, fieldsV1 };
  });
  return changed ? out : undefined;
}

/**
 * Whether `fieldManager`'s Apply entry owns labels, or annotations other than `keep` (those its next apply carries
 * again): only then would that apply remove something another manager is meant to own, so only then is the hand-over
 * (removeManagedFieldsForLabelsAndAnnotations) worth a write. Unread managedFields count as needing it: the hand-over
 * reads them and writes only when there is something to give up.
 */
export function labelsAndAnnotationsHandOverNeeded(
  entries: ManagedFieldsEntry[] | undefined,
  fieldManager: string,
  keep: Record<string, unknown>,
): boolean {
  if (!entries) return true;
  const metadata = entries.find(isApplyEntryOf(fieldManager))?.fieldsV1?.['f:metadata'];
  if (!isMap(metadata)) return false;
  if (metadata['f:labels']) return true;
  const annotations = metadata['f:annotations'];
  if (!isMap(annotations)) return false;
  const owned = Object.keys(annotations);
  // `{}`: the whole map owned as one value.
  return owned.length === 0 || owned.some((k) => !k.startsWith('f:') || !(k.slice(2) in keep));
}

/** Migration is needed when `fieldManager`'s Apply entry owns the cluster-name label (objects created the old way). */
export function needsManagedFieldsMigration(entries: ManagedFieldsEntry[], fieldManager: string): boolean {
  const entry = entries.find(isApplyEntryOf(fieldManager));
  const labels = entry?.fieldsV1?.['f:metadata'];
  return isMap(labels) && isMap(labels['f:labels']) && 'f:cluster.x-k8s.io/cluster-name' in labels['f:labels'];
}

function seedEntry(manager: string, apiVersion: string, fieldsV1: FieldsV1, now: Date): ManagedFieldsEntry {
  return {
    manager,
    operation: 'Apply',
    apiVersion,
    time: formatTime(now),
    fieldsType: 'FieldsV1',
    fieldsV1: structuredClone(fieldsV1),
  };
}

/**
 * managedFields after migration: `fieldManager` Apply and classic `manager` Update entries (main resource) removed,
 * and a seed Apply entry for `metadataFieldManager` added so the first metadata apply is not co-owned by an
 * entry the server would otherwise infer.
 */
export function migratedManagedFields(
  entries: ManagedFieldsEntry[],
  apiVersion: string,
  fieldManager: string,
  metadataFieldManager: string,
  now = new Date(),
): ManagedFieldsEntry[] {
  const kept = entries.filter(
    (e) =>
      !isApplyEntryOf(fieldManager)(e) &&
      !(e.manager === CLASSIC_MANAGER && e.operation === 'Update' && !e.subresource),
  );
  return [...kept, seedEntry(metadataFieldManager, apiVersion, SEED_FIELDS_V1, now)];
}

/**
 * managedFields repaired after the API server dropped them (kubernetes/kubernetes#136919): without entries or with
 * a before-first-apply entry, remove that entry and make sure `fieldManager` has one. Undefined when no repair is
 * needed. `seedFields` lets callers claim more than metadata.name (e.g. KCP extraArgs) so the next apply can unset them.
 */
export function mitigatedManagedFields(
  entries: ManagedFieldsEntry[],
  apiVersion: string,
  fieldManager: string,
  seedFields: FieldsV1 = SEED_FIELDS_V1,
  now = new Date(),
): ManagedFieldsEntry[] | undefined {
  if (entries.length > 0 && !entries.some((e) => e.manager === BEFORE_FIRST_APPLY_MANAGER)) return undefined;
  const out = entries.filter((e) => e.manager !== BEFORE_FIRST_APPLY_MANAGER);
  if (!out.some((e) => e.manager === fieldManager)) out.push(seedEntry(fieldManager, apiVersion, seedFields, now));
  return out;
}

/** Writes managedFields with optimistic locking (resourceVersion in the patch) and copies the result into `obj`. */
async function writeManagedFields(client: Client, obj: KubeObject, managedFields: ManagedFieldsEntry[]): Promise<void> {
  const updated = await client.patch<KubeObject>(refOf(obj), 'merge', {
    metadata: { managedFields, resourceVersion: obj.metadata.resourceVersion },
  });
  obj.metadata.managedFields = updated.metadata.managedFields;
  obj.metadata.resourceVersion = updated.metadata.resourceVersion;
}

export interface ManagedFieldsWriteOptions {
  /** Attempts on conflict; after the first, the object is re-read from the API server (default 3). */
  attempts?: number;
}

/**
 * Drops `fieldManager`'s ownership of labels and annotations, so a metadata field manager can take them over.
 * The first attempt uses `obj` as given (it may come from a cache that keeps managedFields); on conflict the object
 * is re-read from the server. Returns whether anything was written.
 */
export async function removeManagedFieldsForLabelsAndAnnotations(
  client: Client,
  obj: KubeObject,
  fieldManager: string,
  opts: ManagedFieldsWriteOptions = {},
): Promise<boolean> {
  const attempts = opts.attempts ?? 3;
  for (let attempt = 1; ; attempt++) {
    if (attempt > 1 || !obj.metadata.managedFields) Object.assign(obj, await client.get<KubeObject>(refOf(obj)));
    const next = dropLabelsAndAnnotationsOwnership(obj.metadata.managedFields ?? [], fieldManager);
    if (!next) return false;
    try {
      await writeManagedFields(client, obj, next);
      return true;
    } catch (e) {
      if (!isConflict(e) || attempt >= attempts) {
        throw new Error(
          `failed to remove managedFields for labels and annotations from ${obj.kind} ${obj.metadata.namespace ?? ''}/${obj.metadata.name}: ${(e as Error).message}`,
          { cause: e },
        );
      }
    }
  }
}

/** Migrates managedFields once per object (see migratedManagedFields). Returns whether anything was written. */
export async function migrateManagedFields(
  client: Client,
  obj: KubeObject,
  fieldManager: string,
  metadataFieldManager: string,
): Promise<boolean> {
  const entries = obj.metadata.managedFields ?? [];
  if (!needsManagedFieldsMigration(entries, fieldManager)) return false;
  await writeManagedFields(
    client,
    obj,
    migratedManagedFields(entries, obj.apiVersion, fieldManager, metadataFieldManager),
  );
  return true;
}

/** Repairs wiped managedFields (see mitigatedManagedFields). Returns whether anything was written. */
export async function mitigateManagedFieldsIssue(
  client: Client,
  obj: KubeObject,
  fieldManager: string,
  seedFields?: FieldsV1,
): Promise<boolean> {
  const next = mitigatedManagedFields(obj.metadata.managedFields ?? [], obj.apiVersion, fieldManager, seedFields);
  if (!next) return false;
  await writeManagedFields(client, obj, next);
  return true;
}
