// Metadata-only reads, as client-go's metadata client makes them (k8s.io/client-go/metadata): the server answers with
// PartialObjectMetadata, so no spec, status or Secret data crosses the wire. The plain JSON range after it lets a
// server without that form answer with whole objects, of which the client keeps the metadata (client-go's fallback).
import type { KubeObject } from '@capi/apimachinery';

export const METADATA_ONLY_LIST_ACCEPT =
  'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
export const METADATA_ONLY_ACCEPT = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';

/**
 * The object as a metadata-only read hands it out: its metadata under the kind it was read as (controller-runtime's
 * metadata informers keep the requested kind on PartialObjectMetadata, not meta.k8s.io's).
 */
export function metadataOnly(obj: KubeObject, apiVersion: string, kind: string): KubeObject {
  return { apiVersion, kind, metadata: obj.metadata };
}
