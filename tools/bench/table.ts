// Small fixed-width table printer for benchmark output.

export type Cell = string | number;

/** Renders rows under headers, columns padded to their widest cell; numbers are right-aligned. */
export function renderTable(headers: string[], rows: Cell[][]): string {
  for (const r of rows)
    if (r.length !== headers.length) throw new Error(`row has ${r.length} cells, expected ${headers.length}`);
  const text = (c: Cell) => (typeof c === 'number' ? formatNumber(c) : c);
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => text(r[i]).length)));
  const line = (cells: Cell[]) =>
    cells
      .map((c, i) => (typeof c === 'number' ? text(c).padStart(widths[i]) : text(c).padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n') + '\n';
}

/** Integers as is, other numbers with 3 significant decimals at most. */
export function formatNumber(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  if (Number.isInteger(n)) return String(n);
  return n.toFixed(Math.abs(n) >= 100 ? 1 : Math.abs(n) >= 1 ? 2 : 3);
}
