// Field-path helpers on plain JSON objects (paths are lists of map keys, like upstream contract.Path; the nested field
// helpers of k8s.io/apimachinery pkg/apis/meta/v1/unstructured/helpers.go).

export type FieldPath = readonly string[];

type JsonMap = Record<string, unknown>;

const isMap = (v: unknown): v is JsonMap => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Value at `path`, or undefined when any step is missing or not an object. */
export function getPath(obj: unknown, path: FieldPath): unknown {
  let cur: unknown = obj;
  for (const key of path) {
    if (!isMap(cur) || !Object.prototype.hasOwnProperty.call(cur, key)) return undefined;
    cur = cur[key];
  }
  return cur;
}

export function hasPath(obj: unknown, path: FieldPath): boolean {
  let cur: unknown = obj;
  for (const key of path) {
    if (!isMap(cur) || !Object.prototype.hasOwnProperty.call(cur, key)) return false;
    cur = cur[key];
  }
  return true;
}

/** Sets `value` at `path`, creating (or replacing non-object) intermediate maps. */
export function setPath(obj: JsonMap, path: FieldPath, value: unknown): void {
  if (path.length === 0) throw new Error('setPath: empty path');
  let cur: JsonMap = obj;
  for (const key of path.slice(0, -1)) {
    if (!isMap(cur[key])) cur[key] = {};
    cur = cur[key] as JsonMap;
  }
  cur[path[path.length - 1]] = value;
}

/** Removes the field at `path` (no-op when missing). Parents are kept even if they become empty. */
export function deletePath(obj: JsonMap, path: FieldPath): void {
  if (path.length === 0) throw new Error('deletePath: empty path');
  const parent = getPath(obj, path.slice(0, -1));
  if (isMap(parent)) delete parent[path[path.length - 1]];
}

/** A new object holding only the fields at `allowed` paths (deep copies); everything else is dropped. */
export function pickPaths<T extends JsonMap>(obj: T, allowed: readonly FieldPath[]): Partial<T> {
  const out: JsonMap = {};
  for (const path of allowed) {
    if (hasPath(obj, path)) setPath(out, path, structuredClone(getPath(obj, path)));
  }
  return out as Partial<T>;
}

/** True when `path` equals `prefix` or lies below it. */
export function isUnder(path: FieldPath, prefix: FieldPath): boolean {
  return prefix.length <= path.length && prefix.every((k, i) => path[i] === k);
}
