// meta.k8s.io PartialObjectMetadata responses: what client-go's metadata client (controller-runtime's metadata-only
// caches and WatchesMetadata) asks for with `Accept: application/json;as=PartialObjectMetadata[List];g=meta.k8s.io;v=v1`
// (apiserver endpoints/handlers/response.go: asPartialObjectMetadata, asPartialObjectMetadataList).
import type { KubeObject } from '@capi/apimachinery';
import { acceptsJson, parseAccept, type ResponseFormat } from '../protobuf/negotiate';
import { PROTOBUF_MEDIA_TYPE } from '../protobuf/envelope';
import { StatusError } from './status';

export type PartialMetadataKind = 'PartialObjectMetadata' | 'PartialObjectMetadataList';

export interface PartialMetadataTarget {
  as: PartialMetadataKind;
  /** meta.k8s.io/v1 or meta.k8s.io/v1beta1, as asked. */
  apiVersion: string;
  /** The answer's encoding: protobuf for v1 when that range comes first, as kube answers client-go's metadata client. */
  format: ResponseFormat;
}

const VERSIONS = new Set(['v1', 'v1beta1']);

/**
 * The metadata form the client asked for, if the media range this server answers with asks for one: the ranges in the
 * client's order of preference, as format negotiation takes them. A protobuf range is served for meta.k8s.io/v1 (of
 * every kind, custom resources too); a plain protobuf range, for a kind with protobuf, means whole objects.
 */
export function requestedPartialMetadata(
  accept: string | undefined,
  kindHasProtobuf: boolean,
): PartialMetadataTarget | undefined {
  // Most requests ask for no such thing: they skip parsing the header a second time (format negotiation parses it).
  if (!accept?.includes('as=PartialObjectMetadata')) return undefined;
  for (const r of parseAccept(accept)) {
    const { as, g, v } = r.params;
    const partial = (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') && g === 'meta.k8s.io';
    if (r.type === PROTOBUF_MEDIA_TYPE) {
      if (partial && v === 'v1') return { as, apiVersion: 'meta.k8s.io/v1', format: 'protobuf' };
      if (!as && kindHasProtobuf) return undefined;
      continue;
    }
    if (!acceptsJson(r)) continue;
    return partial && VERSIONS.has(v) ? { as, apiVersion: `meta.k8s.io/${v}`, format: 'json' } : undefined;
  }
  return undefined;
}

/** An object's metadata as a PartialObjectMetadata; 406 when the client asked for a list form. */
export function asPartialObjectMetadata(target: PartialMetadataTarget, obj: KubeObject): KubeObject {
  if (target.as !== 'PartialObjectMetadata')
    throw notAcceptable(`you requested ${target.as}, but the requested object is not a list (*v1.${obj.kind})`);
  return partialOf(target, obj);
}

const partialOf = (target: PartialMetadataTarget, obj: KubeObject): KubeObject => ({
  apiVersion: target.apiVersion,
  kind: 'PartialObjectMetadata',
  metadata: obj.metadata,
});

/** A list's items as a PartialObjectMetadataList (its resourceVersion and continue kept); 406 for the object form. */
export function asPartialObjectMetadataList(
  target: PartialMetadataTarget,
  listKind: string,
  list: { metadata?: unknown; items?: KubeObject[] },
): Record<string, unknown> {
  if (target.as !== 'PartialObjectMetadataList')
    throw notAcceptable(`you requested ${target.as}, but the requested object is a list (*v1.${listKind})`);
  return {
    apiVersion: target.apiVersion,
    kind: 'PartialObjectMetadataList',
    metadata: list.metadata,
    items: (list.items ?? []).map((o) => partialOf(target, o)),
  };
}

/** A watch streams objects: 406 for the list form, before the stream starts. */
export function watchablePartialMetadata(target: PartialMetadataTarget): void {
  if (target.as !== 'PartialObjectMetadata')
    throw notAcceptable(`you requested ${target.as}, but the requested object is not a list (a watch event)`);
}

function notAcceptable(message: string): StatusError {
  return new StatusError(406, message, 'NotAcceptable');
}
