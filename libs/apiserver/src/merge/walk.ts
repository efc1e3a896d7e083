// Schema-driven walks over JSON values: the field set a value sets, the difference between two
// values, the apply merge, and removal of paths. Semantics follow structured-merge-diff (typed/*).
import { jsonEqual } from '@capi/apimachinery';
import { FieldPath, FieldSet, MergeError, fieldElement, formatPath, keyElement, valueElement } from './fieldset';
import { OpenApiSchema, TypeKind, isObject, lookupField, typeOf } from './types';

type Json = unknown;
type JsonMap = Record<string, Json>;

function itemKey(item: JsonMap, keys: string[], path: FieldPath): string {
  for (const k of keys) {
    if (item[k] === undefined) {
      throw new MergeError(formatPath(path), `associative list with keys has an element that omits key field "${k}"`);
    }
  }
  return keyElement(item, keys);
}

/** Items of a list-map by serialised key; the first of duplicate keys wins (duplicates are only an error in apply). */
function indexItems(list: JsonMap[], keys: string[], path: FieldPath, rejectDuplicates: boolean): Map<string, JsonMap> {
  const m = new Map<string, JsonMap>();
  for (const item of list) {
    const k = itemKey(item, keys, path);
    if (m.has(k)) {
      if (rejectDuplicates) throw new MergeError(formatPath([...path, k]), 'duplicate entries for key');
      continue;
    }
    m.set(k, item);
  }
  return m;
}

/**
 * The fields `value` sets (structured-merge-diff ToFieldSet). `rejectDuplicates` (apply configurations)
 * makes duplicate list-map keys an error.
 */
export function toFieldSet(
  value: Json,
  schema: OpenApiSchema | undefined,
  opts: { rejectDuplicates?: boolean } = {},
): FieldSet {
  const out = new FieldSet();
  fieldSetAt(value, schema, [], out, opts.rejectDuplicates ?? false);
  return out;
}

function fieldSetAt(
  value: Json,
  schema: OpenApiSchema | undefined,
  path: FieldPath,
  out: FieldSet,
  strict: boolean,
): void {
  const t = typeOf(schema, value);
  switch (t.kind) {
    case 'scalar':
    case 'atomic':
      out.insert(path);
      break;
    case 'set':
      for (const v of value as Json[]) out.insert([...path, valueElement(v)]);
      break;
    case 'listMap': {
      const seen = new Set<string>();
      for (const item of value as JsonMap[]) {
        const k = itemKey(item, t.keys, path);
        if (strict && seen.has(k)) throw new MergeError(formatPath([...path, k]), 'duplicate entries for key');
        seen.add(k);
        const p = [...path, k];
        fieldSetAt(item, t.items, p, out, strict);
        out.insert(p);
      }
      break;
    }
    case 'map':
      for (const [k, v] of Object.entries(value as JsonMap)) {
        const f = lookupField(t.schema, k);
        if (f.ignored || v === undefined) continue;
        const p = [...path, fieldElement(k)];
        fieldSetAt(v, f.schema, p, out, strict);
        // Containers are members only when empty/null or not declared by the schema (as SMD does).
        if (v === null || (isObject(v) && Object.keys(v).length === 0) || !f.declared) out.insert(p);
      }
      break;
  }
}

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

/** What changed from `lhs` to `rhs` (structured-merge-diff Compare): new nodes are added, gone nodes removed. */
export function compare(lhs: Json, rhs: Json, schema: OpenApiSchema | undefined): Comparison {
  const c: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  compareAt(lhs, rhs, schema, [], c);
  return c;
}

function sameKind(a: TypeKind, b: TypeKind): boolean {
  return a.kind === b.kind;
}

function compareAt(lhs: Json, rhs: Json, schema: OpenApiSchema | undefined, path: FieldPath, c: Comparison): void {
  if (lhs === undefined && rhs === undefined) return;
  if (lhs === undefined || rhs === undefined) {
    // A whole subtree appeared or disappeared: every node in it counts.
    const present = lhs === undefined ? rhs : lhs;
    const target = lhs === undefined ? c.added : c.removed;
    everyNode(present, schema, path, target);
    return;
  }
  const tl = typeOf(schema, lhs);
  const tr = typeOf(schema, rhs);
  if (!sameKind(tl, tr) || tr.kind === 'scalar' || tr.kind === 'atomic') {
    if (!jsonEqual(lhs, rhs)) c.modified.insert(path);
    return;
  }
  switch (tr.kind) {
    case 'map': {
      const l = lhs as JsonMap;
      const r = rhs as JsonMap;
      for (const k of new Set([...Object.keys(l), ...Object.keys(r)])) {
        const f = lookupField(tr.schema, k);
        if (f.ignored) continue;
        compareAt(l[k], r[k], f.schema, [...path, fieldElement(k)], c);
      }
      return;
    }
    case 'set': {
      const l = new Set((lhs as Json[]).map(valueElement));
      const r = new Set((rhs as Json[]).map(valueElement));
      for (const v of r) if (!l.has(v)) c.added.insert([...path, v]);
      for (const v of l) if (!r.has(v)) c.removed.insert([...path, v]);
      return;
    }
    case 'listMap': {
      const l = indexItems(lhs as JsonMap[], tr.keys, path, false);
      const r = indexItems(rhs as JsonMap[], tr.keys, path, false);
      for (const k of new Set([...l.keys(), ...r.keys()])) compareAt(l.get(k), r.get(k), tr.items, [...path, k], c);
      return;
    }
  }
}

function everyNode(value: Json, schema: OpenApiSchema | undefined, path: FieldPath, out: FieldSet): void {
  out.insert(path);
  const t = typeOf(schema, value);
  if (t.kind === 'map') {
    for (const [k, v] of Object.entries(value as JsonMap)) {
      const f = lookupField(t.schema, k);
      if (!f.ignored && v !== undefined) everyNode(v, f.schema, [...path, fieldElement(k)], out);
    }
  } else if (t.kind === 'set') {
    for (const v of value as Json[]) out.insert([...path, valueElement(v)]);
  } else if (t.kind === 'listMap') {
    for (const item of value as JsonMap[]) everyNode(item, t.items, [...path, itemKey(item, t.keys, path)], out);
  }
}

const clone = <T>(v: T): T => (v === undefined ? v : structuredClone(v));

/**
 * Merges `rhs` (the applied configuration) into `lhs` (live): granular maps recursively, list-maps by key
 * (live order, new items appended in intent order), sets by union, atomic parts replaced.
 * Ignored fields keep the live value when there is one.
 */
export function mergeValues(lhs: Json, rhs: Json, schema: OpenApiSchema | undefined, path: FieldPath = []): Json {
  if (rhs === undefined) return clone(lhs);
  if (lhs === undefined) return clone(rhs);
  const tr = typeOf(schema, rhs);
  const tl = typeOf(schema, lhs);
  if (!sameKind(tl, tr) || tr.kind === 'scalar' || tr.kind === 'atomic') return clone(rhs);
  switch (tr.kind) {
    case 'map': {
      const l = lhs as JsonMap;
      const r = rhs as JsonMap;
      const out: JsonMap = {};
      for (const k of Object.keys(l)) {
        const f = lookupField(tr.schema, k);
        if (!(k in r) || f.ignored) out[k] = clone(l[k]);
        else out[k] = mergeValues(l[k], r[k], f.schema, [...path, fieldElement(k)]);
      }
      for (const k of Object.keys(r)) if (!(k in l) && r[k] !== undefined) out[k] = clone(r[k]);
      return out;
    }
    case 'set': {
      const out = clone(lhs as Json[]);
      const seen = new Set(out.map(valueElement));
      for (const v of rhs as Json[]) {
        const e = valueElement(v);
        if (!seen.has(e)) {
          seen.add(e);
          out.push(clone(v));
        }
      }
      return out;
    }
    case 'listMap': {
      const r = indexItems(rhs as JsonMap[], tr.keys, path, true);
      const used = new Set<string>();
      const out: Json[] = [];
      for (const item of lhs as JsonMap[]) {
        const k = itemKey(item, tr.keys, path);
        const other = used.has(k) ? undefined : r.get(k);
        used.add(k);
        out.push(other === undefined ? clone(item) : mergeValues(item, other, tr.items, [...path, k]));
      }
      for (const [k, item] of r) if (!used.has(k)) out.push(clone(item));
      return out;
    }
  }
}

function matchesKey(item: Json, keyPe: string): boolean {
  if (!isObject(item)) return false;
  const key = JSON.parse(keyPe.slice(2)) as JsonMap;
  return Object.keys(key).every((k) => jsonEqual(item[k], key[k]));
}

type Slot = { container: JsonMap; key: string } | { container: Json[]; key: number };

/** Where the node at `path` lives (its parent container and key/index), or undefined when absent. */
function locate(root: Json, path: FieldPath): Slot | undefined {
  let node: Json = root;
  let slot: Slot | undefined;
  for (const pe of path) {
    if (pe[0] === 'f') {
      const name = pe.slice(2);
      if (!isObject(node) || !(name in node)) return undefined;
      slot = { container: node, key: name };
      node = node[name];
      continue;
    }
    if (!Array.isArray(node)) return undefined;
    let idx: number;
    if (pe[0] === 'k') idx = node.findIndex((x) => matchesKey(x, pe));
    else if (pe[0] === 'v') idx = node.findIndex((x) => valueElement(x) === pe);
    else idx = Number(pe.slice(2));
    if (!(idx >= 0 && idx < node.length)) return undefined;
    slot = { container: node, key: idx };
    node = node[idx];
  }
  return slot;
}

/** The value at `path`, or undefined. */
export function valueAt(root: Json, path: FieldPath): Json {
  if (path.length === 0) return root;
  const slot = locate(root, path);
  if (!slot) return undefined;
  return Array.isArray(slot.container)
    ? slot.container[slot.key as number]
    : (slot.container as JsonMap)[slot.key as string];
}

/** Removes the node at `path` from `root` in place; a missing path is a no-op. */
export function removePath(root: Json, path: FieldPath): void {
  const slot = locate(root, path);
  if (!slot) return;
  if (Array.isArray(slot.container)) slot.container.splice(slot.key as number, 1);
  else delete (slot.container as JsonMap)[slot.key as string];
}
