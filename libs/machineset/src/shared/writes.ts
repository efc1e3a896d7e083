// Small write helpers shared by the MachineSet and MachineDeployment reconcilers.
import type { KubeObject } from '@capi/apimachinery';
import { isNotFound, type Client, type InformerCache, type ObjectRef } from '@capi/controller-runtime';

/** How long a reconcile waits for its own writes to show up in the informer cache. */
export const CACHE_WAIT_MS = 10_000;

/** Child-event coalescing for the MachineSet and MachineDeployment controllers: up to 10x the last reconcile, at most 2 s
 * (300-Machine bench: in place 99 s -> 70 s against 4x / 1 s; a 3-Machine reconcile of ~3 ms waits ~30 ms). */
export const SECONDARY_EVENT_COALESCING = { factor: 10, maxDelayMs: 2000 };

/**
 * Waits until the cache has seen `obj` at its resourceVersion, so the next reconcile does not act on stale data
 * (e.g. create Machines again). Returns false on timeout or when `signal` (the reconcile's) aborts; callers then rely
 * on the requeue.
 */
export async function waitForCache(
  cache: InformerCache | undefined,
  obj: KubeObject,
  signal?: AbortSignal,
): Promise<boolean> {
  if (!cache || !obj.metadata.resourceVersion) return true;
  return cache.waitForWrite(obj, CACHE_WAIT_MS, signal);
}

/** Deletes an object; already gone is fine. */
export async function deleteIgnoreNotFound(client: Client, ref: ObjectRef): Promise<void> {
  try {
    await client.delete(ref, { propagationPolicy: 'Background' });
  } catch (e) {
    if (!isNotFound(e)) throw e;
  }
}

/** Orders objects by name (byte order, as lists are): controller-owner index lists come back per owner. */
export function byName(a: KubeObject, b: KubeObject): number {
  const x = a.metadata.name ?? '';
  const y = b.metadata.name ?? '';
  return x < y ? -1 : x > y ? 1 : 0;
}
