// Server-side apply and managedFields tracking for non-apply writes (kube fieldmanager + SMD Updater).
import { appendTo, jsonEqual, type KubeObject, type ManagedFieldsEntry } from '@capi/apimachinery';
import { FieldPath, FieldSet, MergeError, fieldElement, formatPath } from './fieldset';
import {
  ManagedFieldsDecodeError,
  ManagerSet,
  decodeManagedFields,
  describeManager,
  encodeManagedFields,
  managerId,
} from './managers';
import { OpenApiSchema, isObject, rootSchema } from './types';
import { compare, mergeValues, removePath, toFieldSet, valueAt } from './walk';

export interface Conflict {
  /** The other manager's name. */
  manager: string;
  /** Field as kube prints it: `.spec.replicas`, `.status.conditions[type="Ready"].status`. */
  field: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  subresource?: string;
  /** Cause message as kube words it: `conflict with "kubectl" using apps/v1`. */
  message: string;
}

export class ApplyConflictError extends Error {
  constructor(readonly conflicts: Conflict[]) {
    super(conflictMessage(conflicts));
    this.name = 'ApplyConflictError';
  }
}

/** kube's wording (fieldmanager internal/conflict.go getConflictMessage). */
function conflictMessage(conflicts: Conflict[]): string {
  if (conflicts.length === 1) return `Apply failed with 1 conflict: ${conflicts[0].message}: ${conflicts[0].field}`;
  const byManager = new Map<string, string[]>();
  for (const c of conflicts) {
    const who = c.message.replace(/^conflict with /, '');
    appendTo(byManager, who, c.field);
  }
  const lines: string[] = [];
  for (const who of [...byManager.keys()].sort()) {
    lines.push(`conflicts with ${who}:`, ...byManager.get(who)!.map((f) => `- ${f}`));
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}

interface Common {
  manager: string;
  schema: OpenApiSchema | undefined;
  /** `scale` writes behave as main-resource writes, in an entry of their own (kube's subresource "scale"). */
  subresource?: 'status' | 'scale';
  /** RFC 3339 time stamped on the writer's entry. */
  now: string;
  /** Main-resource writes neither own nor change `status` (the kind has a status subresource). Default true. */
  ignoreStatus?: boolean;
}
export interface ApplyArgs extends Common {
  live: KubeObject | undefined;
  intent: KubeObject;
  force: boolean;
}
export interface UpdateArgs extends Common {
  live: KubeObject | undefined;
  updated: KubeObject;
}

const STATUS: FieldPath = [fieldElement('status')];
const METADATA = FieldSet.of([fieldElement('metadata')]);
export const BEFORE_FIRST_APPLY = 'before-first-apply';

/** Drops what is never owned: the metadata node itself, and status or everything but status. */
function scope(set: FieldSet, a: Common): FieldSet {
  const s = set.difference(METADATA);
  if (a.subresource === 'status') return s.withPrefix(STATUS);
  if (a.ignoreStatus ?? true) return s.recursiveDifference(FieldSet.of(STATUS));
  return s;
}

function withoutManagedFields(obj: KubeObject | undefined): KubeObject | undefined {
  if (!obj) return obj;
  const { managedFields: _drop, ...meta } = obj.metadata ?? {};
  return { ...obj, metadata: meta };
}

function decodeLive(live: KubeObject | undefined): Map<string, ManagerSet> {
  try {
    return decodeManagedFields(live?.metadata?.managedFields);
  } catch {
    return new Map(); // as kube: undecodable live managedFields are reset rather than failing writes
  }
}

function finish(obj: KubeObject, managers: Map<string, ManagerSet>): KubeObject {
  const entries = encodeManagedFields(managers.values());
  const meta = { ...(obj.metadata ?? {}) };
  if (entries.length > 0) meta.managedFields = entries;
  else delete meta.managedFields;
  return { ...obj, metadata: meta };
}

function checkObject(obj: unknown, what: string): asserts obj is KubeObject {
  if (!isObject(obj)) throw new MergeError('', `${what} must be a JSON object`);
  if (obj.metadata !== undefined && !isObject(obj.metadata)) throw new MergeError('metadata', 'must be an object');
  for (const f of ['apiVersion', 'kind']) {
    if (typeof obj[f] !== 'string' || obj[f] === '') throw new MergeError(f, 'must be set');
  }
}

/** Server-side apply: returns the merged object (metadata.managedFields updated) or throws ApplyConflictError. */
export function applyIntent(a: ApplyArgs): KubeObject {
  checkObject(a.intent, 'apply configuration');
  if (a.live) checkObject(a.live, 'live object');
  if (a.subresource === 'status' && !a.live)
    throw new MergeError('', 'cannot apply to the status of an object that does not exist');
  const mf = a.intent.metadata?.managedFields;
  if (Array.isArray(mf) ? mf.length > 0 : mf !== undefined && mf !== null) {
    throw new MergeError('metadata.managedFields', 'must be nil in an apply configuration');
  }
  const root = rootSchema(a.schema);
  const live = withoutManagedFields(a.live);
  const intent = withoutManagedFields(a.intent)!;

  const managers = decodeLive(a.live);
  if (live && managers.size === 0) {
    // kube: fields of an object nobody tracked yet become owned by a placeholder Update manager.
    const set = scope(toFieldSet(live, root), a);
    const bfa: ManagerSet = { manager: BEFORE_FIRST_APPLY, operation: 'Update', apiVersion: live.apiVersion, set };
    if (!set.isEmpty()) managers.set(managerId(bfa), bfa);
  }
  const self: ManagerSet = {
    manager: a.manager,
    operation: 'Apply',
    apiVersion: intent.apiVersion,
    subresource: a.subresource,
    set: new FieldSet(),
  };
  const selfId = managerId(self);
  const previous = managers.get(selfId);
  self.set = scope(toFieldSet(intent, root, { rejectDuplicates: true }), a);

  let merged = mergeValues(live ?? {}, intent, root) as KubeObject;
  merged.apiVersion = intent.apiVersion;
  merged.kind = intent.kind;
  merged = restoreUnownedParts(merged, live, a);

  if (previous) pruneReleased(merged, previous.set, self.set, managers, selfId);

  const diff = compare(live ?? {}, merged, root);
  const changed = scope(diff.added.union(diff.modified), a);
  const removed = scope(diff.removed, a);

  const conflicts: Conflict[] = [];
  const stolen = new Map<string, FieldSet>();
  for (const [id, m] of managers) {
    if (id === selfId) continue;
    const c = m.set.intersection(changed);
    if (c.isEmpty()) continue;
    stolen.set(id, c);
    for (const p of c.paths()) {
      conflicts.push({
        manager: m.manager,
        field: formatPath(p),
        operation: m.operation,
        apiVersion: m.apiVersion,
        ...(m.subresource ? { subresource: m.subresource } : {}),
        message: `conflict with ${describeManager(m)}`,
      });
    }
  }
  if (conflicts.length > 0 && !a.force) {
    conflicts.sort((x, y) => (x.message < y.message ? -1 : x.message > y.message ? 1 : 0));
    throw new ApplyConflictError(conflicts);
  }

  for (const [id, m] of managers) {
    if (id === selfId) continue;
    m.set = m.set.difference(stolen.get(id) ?? new FieldSet()).difference(removed);
  }
  const objectChanged = !jsonEqual(live, merged);
  self.time = objectChanged || !previous ? a.now : previous.time;
  managers.set(selfId, self);
  return finish(merged, managers);
}

/**
 * Status rules: a main-resource write keeps the live status (the kind has a status subresource);
 * a status write keeps everything but status from live.
 */
function restoreUnownedParts(merged: KubeObject, live: KubeObject | undefined, a: Common): KubeObject {
  if (a.subresource === 'status') {
    const out = structuredClone(live!);
    if (merged.status === undefined) delete out.status;
    else out.status = merged.status;
    return out;
  }
  if (a.ignoreStatus ?? true) {
    if (live?.status === undefined) delete merged.status;
    else merged.status = structuredClone(live.status);
  }
  return merged;
}

/**
 * Removes fields the applier owned before, omits now, and nobody else owns (SMD Updater.prune).
 * Deepest first: a node stays while anyone owns it or something below it; a container the applier owned
 * goes only once nothing untracked is left in it (SMD adds such "dangling" items back); list-map key
 * fields go only with their item.
 */
function pruneReleased(
  merged: KubeObject,
  before: FieldSet,
  now: FieldSet,
  managers: Map<string, ManagerSet>,
  selfId: string,
): void {
  let owned = now;
  for (const [id, m] of managers) if (id !== selfId) owned = owned.union(m.set);
  const released = before
    .difference(now)
    .paths()
    .sort((x, y) => y.length - x.length);
  for (const p of released) {
    if (owned.hasPrefix(p)) continue;
    const last = p[p.length - 1];
    const parent = p[p.length - 2];
    const itemKeys = (pe: string | undefined) =>
      pe?.startsWith('k:') ? Object.keys(JSON.parse(pe.slice(2))) : undefined;
    if (last.startsWith('f:') && itemKeys(parent)?.includes(last.slice(2))) continue;
    if (before.hasMembersBelow(p)) {
      const v = valueAt(merged, p);
      const keys = itemKeys(last) ?? [];
      const leftover = isObject(v) ? Object.keys(v).filter((k) => !keys.includes(k)) : Array.isArray(v) ? v : [];
      if (leftover.length > 0) continue;
    }
    removePath(merged, p);
  }
}

/**
 * Tracks a non-apply write. The writer's (manager, Update, apiVersion, subresource) entry gains the fields
 * it added or changed; every other entry loses them; removed fields leave every entry. As in kube, a
 * main-resource request that carries managedFields different from live's replaces them (`[]` resets them).
 */
export function trackUpdate(a: UpdateArgs): KubeObject {
  checkObject(a.updated, 'object');
  if (a.live) checkObject(a.live, 'live object');
  const root = rootSchema(a.schema);
  const managers = baseManagers(a);
  const live = withoutManagedFields(a.live);
  const updated = withoutManagedFields(a.updated)!;

  const diff = compare(live ?? {}, updated, root);
  const changed = scope(diff.added.union(diff.modified), a);
  const removed = scope(diff.removed, a);

  const self: ManagerSet = {
    manager: a.manager,
    operation: 'Update',
    apiVersion: updated.apiVersion,
    subresource: a.subresource,
    set: new FieldSet(),
  };
  const selfId = managerId(self);
  for (const m of managers.values()) m.set = m.set.difference(changed).difference(removed);
  const previous = managers.get(selfId);
  if (!changed.isEmpty()) {
    managers.set(selfId, { ...self, set: (previous?.set ?? new FieldSet()).union(changed), time: a.now });
  }
  return finish(updated, managers);
}

function isResetRequest(mf: unknown): boolean {
  if (!Array.isArray(mf)) return false;
  return mf.length === 0 || (mf.length === 1 && isObject(mf[0]) && Object.keys(mf[0]).length === 0);
}

/** kube decodeLiveOrNew: which managedFields the update starts from. */
function baseManagers(a: UpdateArgs): Map<string, ManagerSet> {
  const requested = a.updated.metadata?.managedFields as ManagedFieldsEntry[] | undefined;
  if (a.subresource === 'status' || requested === undefined || requested === null) return decodeLive(a.live);
  if (isResetRequest(requested)) return new Map();
  if (a.live && jsonEqual(requested, a.live.metadata?.managedFields)) return decodeLive(a.live);
  try {
    const m = decodeManagedFields(requested);
    return m.size > 0 ? m : decodeLive(a.live);
  } catch (err) {
    if (err instanceof ManagedFieldsDecodeError) throw new MergeError('', err.message);
    throw err;
  }
}
