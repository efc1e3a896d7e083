// Small write helpers shared by the MachineSet and MachineDeployment reconcilers.
import type { ContractVersionResolver } from '@capi/machine';
import { canonicalJson } from '@capi/ssa';
import { isNotFound, type Client, type InformerCache, type KubeObject, type ObjectRef } from '@capi/controller-runtime';

/** How long a reconcile waits for its own writes to show up in the informer cache. */
export const CACHE_WAIT_MS = 10_000;

export function refOf(obj: KubeObject): ObjectRef {
  return { apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata.name ?? '', namespace: obj.metadata.namespace };
}

/**
 * Waits until the cache has seen `obj` at its resourceVersion, so the next reconcile does not act on stale data
 * (e.g. create Machines again). Returns false on timeout; callers then rely on the requeue.
 */
export async function waitForCache(cache: InformerCache | undefined, obj: KubeObject): Promise<boolean> {
  const rv = obj.metadata.resourceVersion;
  if (!cache || !rv) return true;
  return cache.waitForResourceVersion(refOf(obj), rv, CACHE_WAIT_MS);
}

/** Deletes an object; already gone is fine. */
export async function deleteIgnoreNotFound(client: Client, ref: ObjectRef): Promise<void> {
  try {
    await client.delete(ref, { propagationPolicy: 'Background' });
  } catch (e) {
    if (!isNotFound(e)) throw e;
  }
}

/** Deterministic deep equality for JSON values (key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

export interface VersionedRef {
  apiGroup: string;
  kind: string;
  name: string;
}

/** Reads an object behind a contract-versioned reference (version from its CRD's contract label); undefined if absent. */
export async function getReferenced(client: Client, resolver: ContractVersionResolver, ref: VersionedRef, namespace: string | undefined): Promise<KubeObject | undefined> {
  return client.tryGet(await resolver.objectRef(ref, namespace));
}
