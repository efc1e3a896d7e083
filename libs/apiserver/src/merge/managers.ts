// managedFields entries <-> per-manager field sets, keyed the way kube's fieldmanager keys them.
import type { ManagedFieldsEntry } from '@capi/apimachinery';
import { FieldSet } from './fieldset';

export interface ManagerSet {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  subresource?: string;
  time?: string;
  set: FieldSet;
}

/**
 * Identity of an entry. As in kube (BuildManagerIdentifier), an Apply entry is keyed without its
 * apiVersion so a manager keeps one Apply entry across versions; Update entries include it.
 */
export function managerId(m: Pick<ManagerSet, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  return JSON.stringify([m.manager, m.operation, m.operation === 'Apply' ? '' : m.apiVersion, m.subresource ?? '']);
}

export class ManagedFieldsDecodeError extends Error {}

/** Decodes entries; entries with the same identity are unioned. Throws ManagedFieldsDecodeError on malformed input. */
export function decodeManagedFields(entries: unknown): Map<string, ManagerSet> {
  const out = new Map<string, ManagerSet>();
  if (entries === undefined || entries === null) return out;
  if (!Array.isArray(entries)) throw new ManagedFieldsDecodeError('metadata.managedFields must be a list');
  entries.forEach((e: ManagedFieldsEntry, i) => {
    const at = `metadata.managedFields[${i}]`;
    if (e === null || typeof e !== 'object') throw new ManagedFieldsDecodeError(`${at}: must be an object`);
    if (e.operation !== 'Apply' && e.operation !== 'Update') {
      throw new ManagedFieldsDecodeError(`${at}.operation: must be "Apply" or "Update"`);
    }
    if (e.fieldsType !== undefined && e.fieldsType !== 'FieldsV1') {
      throw new ManagedFieldsDecodeError(`${at}.fieldsType: must be "FieldsV1"`);
    }
    let set: FieldSet;
    try {
      set = FieldSet.fromFieldsV1(e.fieldsV1 ?? {});
    } catch (err) {
      throw new ManagedFieldsDecodeError(`${at}.fieldsV1: ${(err as Error).message}`);
    }
    const m: ManagerSet = {
      manager: e.manager ?? '',
      operation: e.operation,
      apiVersion: e.apiVersion ?? '',
      subresource: e.subresource || undefined,
      time: normalizeTime(e.time),
      set,
    };
    const id = managerId(m);
    const prev = out.get(id);
    out.set(id, prev ? { ...m, set: prev.set.union(set) } : m);
  });
  return out;
}

/** managedFields[].time is a metav1.Time: kube re-encodes it as RFC 3339 in seconds ("…00.000Z" → "…00Z"). */
function normalizeTime(t: string | undefined): string | undefined {
  if (!t) return t;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? t : new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** Encodes in kube's order: operation, time, manager, apiVersion, subresource. Empty sets are dropped. */
export function encodeManagedFields(managers: Iterable<ManagerSet>): ManagedFieldsEntry[] {
  const list = [...managers].filter((m) => !m.set.isEmpty());
  const seconds = (t?: string) => (t ? Math.floor(Date.parse(t) / 1000) || 0 : 0);
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  list.sort(
    (p, q) =>
      cmp(p.operation, q.operation) ||
      seconds(p.time) - seconds(q.time) ||
      cmp(p.manager, q.manager) ||
      cmp(p.apiVersion, q.apiVersion) ||
      cmp(p.subresource ?? '', q.subresource ?? ''),
  );
  return list.map((m) => {
    const e: ManagedFieldsEntry = { manager: m.manager, operation: m.operation, apiVersion: m.apiVersion };
    if (m.time) e.time = m.time;
    e.fieldsType = 'FieldsV1';
    e.fieldsV1 = m.set.toFieldsV1();
    if (m.subresource) e.subresource = m.subresource;
    return e;
  });
}

/** How kube names a manager in conflict messages (fieldmanager printManager, identifiers carry no time). */
export function describeManager(m: Pick<ManagerSet, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  let s = JSON.stringify(m.manager);
  if (m.subresource) s += ` with subresource ${JSON.stringify(m.subresource)}`;
  if (m.operation === 'Update') s += ` using ${m.apiVersion}`;
  return s;
}
