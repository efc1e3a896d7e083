// Response content negotiation between JSON and protobuf, the way kube's serializer negotiation picks one.
import { PROTOBUF_MEDIA_TYPE } from './envelope';

export type ResponseFormat = 'json' | 'protobuf';

export interface MediaRange {
  type: string;
  params: Record<string, string>;
  q: number;
}

/** Whether JSON answers this range: application/json, or a wildcard over it. */
export const acceptsJson = (r: MediaRange): boolean =>
  r.type === 'application/json' || r.type === 'application/*' || r.type === '*/*';

/** The ranges of an Accept header, most preferred first (q, then the client's order); q=0 ranges dropped. */
export function parseAccept(accept: string): MediaRange[] {
  return accept
    .split(',')
    .map((part) => {
      const [type, ...rest] = part.split(';').map((s) => s.trim());
      const params = Object.fromEntries(
        rest.map((p) => p.split('=').map((s) => s.trim())).filter((kv) => kv.length === 2),
      ) as Record<string, string>;
      const q = params.q === undefined ? 1 : Number(params.q);
      delete params.q;
      return { type: (type ?? '').toLowerCase(), params, q: Number.isFinite(q) ? q : 0 };
    })
    .filter((r) => r.type && r.q > 0)
    .map((r, i) => ({ r, i }))
    .sort((a, b) => b.r.q - a.r.q || a.i - b.i) // stable: equal q keeps the client's order
    .map(({ r }) => r);
}

/**
 * The format of a response, or undefined when the client accepts only protobuf and `protobuf` is false (the kind has
 * no protobuf schema, e.g. custom resources, or the response is a watch stream): kube answers 406 then. Accept values
 * naming neither format get JSON, as this server has always answered.
 */
export function negotiateResponse(accept: string | undefined, protobuf: boolean): ResponseFormat | undefined {
  if (!accept) return 'json';
  const ranges = parseAccept(accept);
  for (const r of ranges) {
    if (r.type === PROTOBUF_MEDIA_TYPE && protobuf && !r.params.as) return 'protobuf';
    if (acceptsJson(r)) return 'json';
  }
  return ranges.some((r) => r.type === PROTOBUF_MEDIA_TYPE) ? undefined : 'json';
}
