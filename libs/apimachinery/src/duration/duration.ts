// Ages as kube prints them: k8s.io/apimachinery util/duration HumanDuration (~2-3 significant figures) and the printers'
// translateTimestampSince ("<unknown>" for an unset timestamp).

/** HumanDuration of a duration in milliseconds: "45s", "5m30s", "2h10m", "3d4h", "2y30d". */
export function humanDuration(ms: number): string {
  // Allow deviation no more than 2 seconds (excluded) to tolerate clock skew: "almost now".
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${days}d` : `${days}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) {
    const d = days % 365;
    return d === 0 ? `${years}y` : `${years}y${d}d`;
  }
  return `${years}y`;
}

/** Age of an RFC 3339 timestamp at `now`; "<unknown>" when unset, "<invalid>" when it does not parse. */
export function timestampSince(ts: unknown, now: Date): string {
  if (typeof ts !== 'string' || ts === '') return '<unknown>';
  const t = Date.parse(ts);
  if (Number.isNaN(t)) return '<invalid>';
  return humanDuration(now.getTime() - t);
}
