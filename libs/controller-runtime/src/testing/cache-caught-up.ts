// Test helper: a reconcile a test calls itself reads from the manager's cache, which may not yet show the test's last
// write (seen on kube-apiserver under load). The test means "reconcile the state I wrote", so wait for that first.
import type { InformerCache } from '../cache/cache';
import type { Client, ObjectRef } from '../client/types';
import type { Reconciler, Request, Result } from '../controller/types';
import { testReconcileContext } from './reconcile-context';

/**
 * Resolves once `cache` shows the object as the server holds it now (its resourceVersion, or its absence); throws
 * after timeoutMs so that a test fails on the wait, not later on a stale read.
 */
export async function cacheCaughtUp(cache: InformerCache, client: Client, ref: ObjectRef, timeoutMs = 10_000) {
  const current = await client.tryGet(ref);
  const cached = current ? undefined : await cache.tryGet(ref);
  const seen = current
    ? await cache.waitForResourceVersion(ref, current.metadata.resourceVersion!, timeoutMs)
    : !cached || (await cache.waitForGone(ref, cached.metadata.uid!, timeoutMs));
  if (!seen)
    throw new Error(`the cache did not catch up with ${ref.kind} ${ref.namespace}/${ref.name} in ${timeoutMs} ms`);
}

/**
 * A harness's direct reconcile of `kind` objects: once `cache` shows the object as the server holds it
 * (cacheCaughtUp), one reconcile outside the controller's queue with a fresh test context.
 */
export function reconcileWhenCached(
  reconciler: Reconciler,
  cache: InformerCache,
  client: Client,
  kind: { apiVersion: string; kind: string },
): (req: Request) => Promise<Result | void> {
  return async (req) => {
    await cacheCaughtUp(cache, client, { ...kind, ...req });
    return reconciler.reconcile(req, testReconcileContext(req, { kind: kind.kind }));
  };
}
