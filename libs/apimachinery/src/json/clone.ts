/**
 * Deep copy of a JSON value (what informers hold: objects decoded from the API). Several times faster than
 * structuredClone, which matters because every cached read hands out a copy (the cache's own must stay intact).
 */
export function cloneJson<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = cloneJson(value[i]);
    return out as T;
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[key] = cloneJson((value as Record<string, unknown>)[key]);
  return out as T;
}

/**
 * Freezes a JSON value and everything in it, so a shared cached object cannot be changed by accident (a write throws
 * in strict-mode code). An already frozen root is returned as it is: objects are frozen whole, once.
 */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  return Object.freeze(value);
}
