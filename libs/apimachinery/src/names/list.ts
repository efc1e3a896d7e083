// Lists of names in messages (upstream util/log/log.go ListToString): the first n, then "... (k more)".

/** "a, b, c, ... (2 more)": the first `n` items joined by ", ", then how many were left out. */
export function listToString(items: readonly string[], n: number): string {
  const shown = items.slice(0, n);
  if (items.length > n) shown.push(`... (${items.length - n} more)`);
  return shown.join(', ');
}
