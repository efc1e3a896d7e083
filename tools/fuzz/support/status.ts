// Checks that an API server answer is well formed: errors are a Kubernetes Status whose code matches the HTTP code
// (or, for a path outside every API group, kube's plain-text 404).
import type { RawResponse } from './http';

/** Returns why `res` is not acceptable for bad input, or undefined when it is. */
export function statusViolation(res: RawResponse, method: string): string | undefined {
  if (res.code === 500 && isEtcdTooLarge(res.text)) return undefined;
  if (res.code >= 500 || res.code < 200) return `HTTP ${res.code}: ${res.text.slice(0, 300)}`;
  if (method === 'HEAD') return undefined;
  if (res.code < 300) {
    // Success bodies are JSON too (except plain-text health endpoints).
    if (String(res.headers['content-type'] ?? '').startsWith('text/plain')) return undefined;
    try {
      JSON.parse(res.text);
      return undefined;
    } catch {
      return `HTTP ${res.code} with a non-JSON body: ${res.text.slice(0, 200)}`;
    }
  }
  // kube-apiserver's answer for a path no API group claims: Go's http.NotFound text, not a Status.
  if (
    res.code === 404 &&
    String(res.headers['content-type'] ?? '').startsWith('text/plain') &&
    res.text === '404 page not found\n'
  )
    return undefined;
  let s: Record<string, unknown>;
  try {
    s = JSON.parse(res.text);
  } catch {
    return `HTTP ${res.code} with a non-JSON body: ${res.text.slice(0, 200)}`;
  }
  const problems: string[] = [];
  if (s.kind !== 'Status' || s.apiVersion !== 'v1')
    problems.push(`not a v1 Status (kind ${String(s.kind)}, apiVersion ${String(s.apiVersion)})`);
  if (s.status !== 'Failure') problems.push(`status ${String(s.status)}, want Failure`);
  if (s.code !== res.code) problems.push(`Status code ${String(s.code)} != HTTP ${res.code}`);
  if (typeof s.reason !== 'string' || s.reason === '') problems.push('empty reason');
  if (typeof s.message !== 'string') problems.push('no message');
  return problems.length ? `HTTP ${res.code}: ${problems.join(', ')}: ${res.text.slice(0, 200)}` : undefined;
}

/** kube's answer for an object over etcd's request limit: etcd's error as a 500 without a reason. */
function isEtcdTooLarge(text: string): boolean {
  try {
    const s = JSON.parse(text);
    return (
      s.kind === 'Status' &&
      s.code === 500 &&
      s.message === 'etcdserver: request is too large' &&
      s.reason === undefined
    );
  } catch {
    return false;
  }
}
