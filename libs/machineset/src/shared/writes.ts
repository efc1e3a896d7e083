// Small write helpers shared by the MachineSet and MachineDeployment reconcilers.
import type { KubeObject } from '@capi/apimachinery';
import { isNotFound, type Client, type ObjectRef, type ReconcileContext } from '@capi/controller-runtime';

/** Child-event coalescing for the MachineSet and MachineDeployment controllers: up to 10x the last reconcile, at most 2 s
 * (300-Machine bench: in place 99 s -> 70 s against 4x / 1 s; a 3-Machine reconcile of ~3 ms waits ~30 ms). */
export const SECONDARY_EVENT_COALESCING = { factor: 10, maxDelayMs: 2000 };

/** Deletes an object; already gone is fine. Returns it as the server answered while it is being deleted. */
export async function deleteIgnoreNotFound(client: Client, ref: ObjectRef): Promise<KubeObject | undefined> {
  try {
    return await client.delete(ref, { propagationPolicy: 'Background' });
  } catch (e) {
    if (!isNotFound(e)) throw e;
    return undefined;
  }
}

/**
 * The next reconcile of `reconciled` waits until the cache has seen `written`, this reconcile's write (Cluster API
 * DeferNextReconcileUntilCacheUpToDate): it must not count Machines, or create them, from before its own writes.
 */
export function deferUntilCached(ctx: ReconcileContext, reconciled: KubeObject, written: KubeObject | undefined): void {
  const rv = written?.metadata.resourceVersion;
  if (!written || !rv) return;
  ctx.controller?.deferNextReconcileUntilCacheUpToDate(
    reconciled,
    { apiVersion: written.apiVersion, kind: written.kind },
    rv,
  );
}

/** Orders objects by name (byte order, as lists are): controller-owner index lists come back per owner. */
export function byName(a: KubeObject, b: KubeObject): number {
  const x = a.metadata.name ?? '';
  const y = b.metadata.name ?? '';
  return x < y ? -1 : x > y ? 1 : 0;
}
