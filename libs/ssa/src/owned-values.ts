// What one field manager's apply left on an object: its managedFields entry (FieldsV1) with the values at the fields it
// lists. When those are the same as right after the manager's last apply of the same intent, re-applying that intent
// changes nothing, however often other managers wrote the object meanwhile (which is all a resourceVersion-keyed cache
// can see).
import { createHash } from 'node:crypto';
import { canonicalJson, type KubeObject, type ManagedFieldsEntry } from '@capi/apimachinery';

const isMap = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The list item a FieldsV1 "k:{...}" (associative key) or "v:..." (set value) key names, if present. */
function listItem(list: unknown[], key: string): unknown {
  const spec = JSON.parse(key.slice(2)) as unknown;
  if (key.startsWith('v:')) return list.find((item) => canonicalJson(item) === canonicalJson(spec));
  if (!isMap(spec)) return undefined;
  return list.find(
    (item) => isMap(item) && Object.entries(spec).every(([k, v]) => canonicalJson(item[k]) === canonicalJson(v)),
  );
}

/**
 * The values at the fields `fields` lists, as [path, value] pairs in FieldsV1 order; a missing field is recorded as
 * missing, so a field removed by someone else changes the result.
 */
function ownedValues(value: unknown, fields: Record<string, unknown>, path: string, out: [string, unknown][]): void {
  for (const [key, sub] of Object.entries(fields)) {
    if (key === '.') continue; // the item itself: its fields are its siblings
    let child: unknown;
    if (key.startsWith('f:')) child = isMap(value) ? value[key.slice(2)] : undefined;
    else if (key.startsWith('k:') || key.startsWith('v:'))
      child = Array.isArray(value) ? listItem(value, key) : undefined;
    else if (key.startsWith('i:')) child = Array.isArray(value) ? value[Number(key.slice(2))] : undefined;
    else child = undefined;
    const childPath = `${path}/${key}`;
    if (isMap(sub) && Object.keys(sub).length > 0 && child !== undefined) ownedValues(child, sub, childPath, out);
    else out.push([childPath, child === undefined ? { missing: true } : child]);
  }
}

/** The Apply entry of `fieldManager` for the main resource (not a subresource), if any. */
export function applyEntryOf(obj: KubeObject, fieldManager: string): ManagedFieldsEntry | undefined {
  return obj.metadata?.managedFields?.find(
    (e) => e.manager === fieldManager && e.operation === 'Apply' && !e.subresource,
  );
}

/**
 * Digest of what `fieldManager`'s apply owns on `obj` (its FieldsV1 and the values there), or undefined when the
 * object carries no such entry (e.g. managedFields not read): then nothing can be concluded.
 */
export function ownedValuesDigest(obj: KubeObject, fieldManager: string): string | undefined {
  const entry = applyEntryOf(obj, fieldManager);
  if (!entry?.fieldsV1) return undefined;
  const values: [string, unknown][] = [];
  ownedValues(obj, entry.fieldsV1, '', values);
  return createHash('sha256')
    .update(canonicalJson([obj.metadata.uid ?? '', entry.apiVersion ?? '', entry.fieldsV1, values]))
    .digest('base64url');
}
