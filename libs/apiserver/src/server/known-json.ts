// The JSON text of shared (frozen) objects whose serialization is already known (the store wrote or read it), so a
// response or watch frame reuses those bytes instead of stringifying the object again. Byte-identical by
// construction: an entry is recorded only for an object whose JSON.stringify is exactly that text.
const known = new WeakMap<object, string>();

export function rememberJson(obj: object, json: string): void {
  known.set(obj, json);
}

/** JSON.stringify(value), reusing known texts for the value itself or, for a list, for each of its items. */
export function stringifyKnown(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  const whole = known.get(value);
  if (whole !== undefined) return whole;
  const items = (value as { items?: unknown }).items;
  const keys = Object.keys(value);
  if (Array.isArray(items) && items.length > 0 && keys[keys.length - 1] === 'items') {
    const parts: string[] = [];
    for (const item of items) {
      const json = typeof item === 'object' && item !== null ? known.get(item) : undefined;
      if (json === undefined) return JSON.stringify(value);
      parts.push(json);
    }
    // `items` is the last key: its text is the tail `"items":[]}` of the list without items.
    const head = JSON.stringify({ ...value, items: [] });
    return `${head.slice(0, -3)}[${parts.join(',')}]}`;
  }
  return JSON.stringify(value);
}
