/** "42s", "3m5s", "2h1m": how long ago `since` (RFC 3339) was at `now` (ms). */
export function age(now: number, since: string): string {
  const s = Math.max(0, Math.round((now - Date.parse(since)) / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${s % 60}s`;
  return `${Math.floor(s / 3600)}h${Math.floor((s % 3600) / 60)}m`;
}
