// Sharing of equal managedFields trees between stored objects: the informer cache of @capi/controller-runtime applies
// it as a transform (controller-runtime's cache TransformFunc), @capi/apiserver's store to every object it keeps.
import { deepFreeze } from '../json/clone';
import type { KubeObject } from './types';

/**
 * Makes cached objects share equal managedFields `fieldsV1` trees (deep-frozen). managedFields are about half of an
 * object's JSON (a Machine: 2.9 of 5.9 KB) and the Machines of one MachineSet differ in them only by timestamps: which
 * fields each manager owns is the same tree. Cached objects are handed out as copies or deep-frozen, so the sharing is
 * invisible to readers. Bounded: beyond `maxTrees` distinct trees the table starts again (objects stored before keep
 * the trees they share; sharing only saves memory).
 */
export function shareManagedFieldsTrees(maxTrees = 4096): (obj: KubeObject) => KubeObject {
  const trees = new Map<string, unknown>();
  return (obj) => {
    const entries = obj.metadata?.managedFields;
    if (!Array.isArray(entries)) return obj;
    for (const entry of entries) {
      const tree = entry?.fieldsV1;
      if (tree === null || typeof tree !== 'object' || Object.isFrozen(tree)) continue;
      const key = JSON.stringify(tree);
      let shared = trees.get(key);
      if (shared === undefined) {
        if (trees.size >= maxTrees) trees.clear();
        shared = deepFreeze(tree);
        trees.set(key, shared);
      }
      entry.fieldsV1 = shared as typeof entry.fieldsV1;
    }
    return obj;
  };
}

/**
 * The object without metadata.managedFields (controller-runtime's cache.TransformStripManagedFields): for caches whose
 * readers never look at them, e.g. workload cluster Nodes and the management cluster's Secrets.
 */
export function stripManagedFields<T extends KubeObject>(obj: T): T {
  if (!obj.metadata || !('managedFields' in obj.metadata)) return obj;
  const { managedFields: _managedFields, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}
