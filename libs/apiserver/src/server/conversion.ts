// Versions that share storage with another: events.k8s.io/v1 Event is stored as core v1 Event (as in kube).
import type { KubeObject } from '@capi/apimachinery';
import type { ResourceInfo } from './registry';
import { dropEventsV1EmptyStrings, withGoZeroFields } from '../schema/go-zero';
import { sortKeysDeep } from '../schema/values';

/** events.k8s.io/v1 field → core v1 field. */
const EVENT_FIELDS: [string, string][] = [
  ['regarding', 'involvedObject'],
  ['note', 'message'],
  ['reportingController', 'reportingComponent'],
  ['deprecatedSource', 'source'],
  ['deprecatedFirstTimestamp', 'firstTimestamp'],
  ['deprecatedLastTimestamp', 'lastTimestamp'],
  ['deprecatedCount', 'count'],
];

function rename(obj: Record<string, any>, pairs: [string, string][]): Record<string, any> {
  const out = { ...obj };
  for (const [from, to] of pairs) {
    if (from in out) {
      out[to] = out[from];
      delete out[from];
    }
  }
  return out;
}

const isEventsV1 = (info: ResourceInfo) => info.group === 'events.k8s.io' && info.kind === 'Event';

/**
 * The object as stored: custom resources with sorted keys; built-in kinds with the zero fields their Go type always
 * writes (core v1 shape for events.k8s.io Events), as kube-apiserver stores them.
 */
export function toStorage(info: ResourceInfo, obj: KubeObject): KubeObject {
  // kube serves custom resources as unstructured maps, which Go's JSON encoder writes with sorted keys: stored so,
  // every answer and watch event has kube's key order.
  // The resourceVersion the store sets takes its sorted place ('' until then).
  if (info.custom)
    return sortKeysDeep({ ...obj, metadata: { ...obj.metadata, resourceVersion: obj.metadata.resourceVersion ?? '' } });
  const stored = isEventsV1(info)
    ? ({ ...rename(obj, EVENT_FIELDS), apiVersion: 'v1', kind: 'Event' } as KubeObject)
    : obj;
  return withGoZeroFields(stored);
}

/** A stored object in the shape of the requested version. */
export function fromStorage(info: ResourceInfo, data: Record<string, any>): KubeObject {
  const apiVersion = info.group ? `${info.group}/${info.version}` : info.version;
  if (!isEventsV1(info)) return { ...data, apiVersion, kind: info.kind } as KubeObject;
  const shaped = dropEventsV1EmptyStrings(
    rename(
      data,
      EVENT_FIELDS.map(([a, b]) => [b, a] as [string, string]),
    ),
  );
  return withGoZeroFields({ ...shaped, apiVersion, kind: info.kind }) as KubeObject;
}
