import { groupOf, KubeObject } from '@capi/apimachinery';
import { GroupVersionKind, Request } from './types';

/** The request for an object itself. */
export function requestFor(obj: KubeObject): Request {
  return obj.metadata.namespace
    ? { namespace: obj.metadata.namespace, name: obj.metadata.name! }
    : { name: obj.metadata.name! };
}

/**
 * The owner to reconcile for an owned object: its controller ownerReference, if that is of the owner's group and kind
 * (versions may differ). Owners live in the owned object's namespace (cluster-scoped owners get no namespace).
 */
export function controllerOwnerRequests(obj: KubeObject, owner: GroupVersionKind, ownerNamespaced = true): Request[] {
  const ref = obj.metadata.ownerReferences?.find((r) => r.controller === true);
  if (!ref || ref.kind !== owner.kind || groupOf(ref.apiVersion) !== groupOf(owner.apiVersion)) return [];
  return [
    ownerNamespaced && obj.metadata.namespace
      ? { namespace: obj.metadata.namespace, name: ref.name }
      : { name: ref.name },
  ];
}
