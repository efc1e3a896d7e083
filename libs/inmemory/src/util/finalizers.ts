// Finalizer add/remove as merge patches of the list, unguarded as upstream's util/finalizers EnsureFinalizer and the
// in-memory provider's patch helper (client.MergeFrom without the optimistic lock).
import type { KubeObject } from '@capi/apimachinery';
import { isNotFound, refOf, type Client } from '@capi/controller-runtime';

/** Adds `finalizer`; updates `obj` with the server's answer. */
export async function addFinalizer(client: Client, obj: KubeObject, finalizer: string): Promise<void> {
  const finalizers = [...(obj.metadata.finalizers ?? []), finalizer];
  const out = await client.patch(refOf(obj), 'merge', { metadata: { finalizers } });
  obj.metadata = out.metadata;
}

/**
 * Removes `finalizer`; returns the server's answer (the last version of an object it lets go), undefined when the
 * object was already gone (a stale cache after the last removal).
 */
export async function removeFinalizer(
  client: Client,
  obj: KubeObject,
  finalizer: string,
): Promise<KubeObject | undefined> {
  const finalizers = (obj.metadata.finalizers ?? []).filter((f) => f !== finalizer);
  try {
    return await client.patch(refOf(obj), 'merge', { metadata: { finalizers } });
  } catch (e) {
    if (!isNotFound(e)) throw e;
    return undefined;
  }
}
