// Equality of JSON values as the API server sees them (reflect.DeepEqual on decoded JSON, as
// k8s.io/apimachinery/pkg/api/equality compares objects). kube-apiserver serializes custom resources with their keys
// sorted (apimachinery's unstructured JSON), while objects built in code keep insertion order, so comparing
// JSON.stringify output calls equal objects different.

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Deep equality of JSON values: key order ignored, a key whose value is undefined is the same as no key. Structural
 * (no prototype check), so copies made by structuredClone in another realm compare equal.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    return ka.length === kb.length && ka.every((k) => k in b && jsonEqual(a[k], b[k]));
  }
  return false;
}

/** Replacer giving every plain object its keys in sorted order (native stringify does the rest, fast). */
function sortKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const sorted: Record<string, unknown> = {};
  for (const k of Object.keys(value as Record<string, unknown>).sort())
    sorted[k] = (value as Record<string, unknown>)[k];
  return sorted;
}

/**
 * JSON with object keys sorted at every level (as Go's encoding/json writes a map), so equal content always prints,
 * and hashes, the same. Undefined members are left out; undefined itself prints "null".
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, sortKeys) ?? 'null';
}
