// Where kube-apiserver answers a path it does not serve. Built-in groups are go-restful web services: an unknown
// version, resource or subresource there is a JSON Status. Paths no web service claims (unknown groups, groups served
// only by CRDs, anything outside /api and /apis) fall through the CRD handler to the end of the delegation chain,
// whose answer is Go's http.NotFound: "404 page not found" as text (staging/src/k8s.io/apiserver/pkg/server/
// handler.go, and the crdHandler's delegate in apiextensions-apiserver/pkg/apiserver/customresource_handler.go).
import type { ServerResponse } from 'node:http';
import { builtinResources } from './registry';
import { StatusError } from './status';

/** The plain-text 404 of an unclaimed path. */
export class PathNotFound extends Error {
  constructor() {
    super('404 page not found');
  }
}

export const NOT_FOUND_TEXT = '404 page not found\n';

/** go-restful's answer for a path under a built-in group it does not route (details: {}, as kube writes it). */
export const resourceNotFound = (): StatusError =>
  new StatusError(404, 'the server could not find the requested resource', 'NotFound', {});

const BUILTIN_GROUPS = new Set(
  builtinResources()
    .map((r) => r.group)
    .filter(Boolean),
);

/** The error for a path no resource route matched: decoded path segments in. */
export function unmatchedPath(segs: string[]): StatusError | PathNotFound {
  if (segs[0] === 'api') return resourceNotFound();
  if (segs[0] === 'apis' && segs.length >= 2 && BUILTIN_GROUPS.has(segs[1])) return resourceNotFound();
  return new PathNotFound();
}

export function sendPathNotFound(res: ServerResponse): void {
  res.writeHead(404, {
    'Content-Type': 'text/plain; charset=utf-8',
    'X-Content-Type-Options': 'nosniff',
    'Content-Length': Buffer.byteLength(NOT_FOUND_TEXT),
  });
  res.end(NOT_FOUND_TEXT);
}
