import { jsonEqual } from '@capi/apimachinery';
// Readable structural diff: the leaf paths where two JSON values differ (used in "cannot be updated in-place" reasons).

const isMap = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

const MAX_VALUE_CHARS = 60;
const MAX_ENTRIES = 10;

function show(v: unknown): string {
  if (v === undefined) return '<unset>';
  const s = JSON.stringify(v);
  return s.length > MAX_VALUE_CHARS ? `${s.slice(0, MAX_VALUE_CHARS - 3)}...` : s;
}

/** Differing paths as "a.b[2].c", each with its current and desired value. Missing and undefined are equal. */
export function diffPaths(
  current: unknown,
  desired: unknown,
  path = '',
): { path: string; current: unknown; desired: unknown }[] {
  if (isMap(current) && isMap(desired)) {
    const keys = [...new Set([...Object.keys(current), ...Object.keys(desired)])].sort();
    return keys.flatMap((k) => diffPaths(current[k], desired[k], path ? `${path}.${k}` : k));
  }
  if (Array.isArray(current) && Array.isArray(desired) && current.length === desired.length) {
    return current.flatMap((v, i) => diffPaths(v, desired[i], `${path}[${i}]`));
  }
  if (current === undefined && desired === undefined) return [];
  if (jsonEqual(current, desired)) return [];
  return [{ path: path || '<root>', current, desired }];
}

/** "version: \"v1.30.0\" → \"v1.31.0\", failureDomain: <unset> → \"fd2\"" (capped); "" when equal. */
export function formatDiff(current: unknown, desired: unknown): string {
  const diffs = diffPaths(current, desired);
  const shown = diffs.slice(0, MAX_ENTRIES).map((d) => `${d.path}: ${show(d.current)} → ${show(d.desired)}`);
  if (diffs.length > MAX_ENTRIES) shown.push(`... and ${diffs.length - MAX_ENTRIES} more`);
  return shown.join(', ');
}
