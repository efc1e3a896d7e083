// Lists kept by key. Appending to a list in place: rebuilding it on every append (`[...old, value]`) is quadratic in
// the list's length, which at 10,000 Machines sharing one condition message made status aggregation the manager's
// main cost.

/** Appends `values` to the list under `key`, creating it. */
export function appendTo<K, V>(groups: Map<K, V[]>, key: K, ...values: V[]): void {
  const list = groups.get(key);
  if (list) list.push(...values);
  else groups.set(key, values);
}

/** `items` grouped by `keyOf`, in their order; items whose key is undefined are left out. */
export function groupBy<T, K>(items: Iterable<T>, keyOf: (item: T) => K | undefined): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    if (key !== undefined) appendTo(groups, key, item);
  }
  return groups;
}
