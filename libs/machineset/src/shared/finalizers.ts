// Finalizer handling shared by the MachineSet and MachineDeployment reconcilers. Both delete their children themselves
// instead of relying on ownerReference garbage collection (not every API server runs it), as upstream
// core/reconcilers/machineset/machineset_controller.go and machinedeployment/machinedeployment_controller.go
// (reconcileDelete, finalizers.EnsureFinalizer).
import type { KubeObject } from '@capi/apimachinery';
import { refOf, type Client, type ReconcileContext } from '@capi/controller-runtime';
import { deferUntilCached } from './writes';

/** A merge patch of metadata.finalizers, with the resourceVersion read so a concurrent change of the list conflicts. */
export interface FinalizersPatch {
  metadata: { finalizers: string[]; resourceVersion?: string };
}

/**
 * The patch adding `finalizer`, or undefined when it is there already or the object is deleting (finalizers cannot be
 * added then; upstream util/finalizers EnsureFinalizer).
 */
export function addFinalizerPatch(obj: KubeObject, finalizer: string): FinalizersPatch | undefined {
  const current = obj.metadata.finalizers ?? [];
  if (obj.metadata.deletionTimestamp || current.includes(finalizer)) return undefined;
  return { metadata: { finalizers: [...current, finalizer], resourceVersion: obj.metadata.resourceVersion } };
}

/** The patch removing `finalizer`, or undefined when it is not there. */
export function removeFinalizerPatch(obj: KubeObject, finalizer: string): FinalizersPatch | undefined {
  const current = obj.metadata.finalizers ?? [];
  if (!current.includes(finalizer)) return undefined;
  return {
    metadata: { finalizers: current.filter((f) => f !== finalizer), resourceVersion: obj.metadata.resourceVersion },
  };
}

/** What a deleting owner does with its children (upstream reconcileDelete of both controllers). */
export interface ChildDeletionPlan<T> {
  /** No child left: the owner's finalizer goes. */
  removeFinalizer: boolean;
  /** Children not deleting yet: deleted now; the owner then waits for all of them to be gone. */
  toDelete: T[];
}

export function planChildDeletion<T extends KubeObject>(children: readonly T[]): ChildDeletionPlan<T> {
  return {
    removeFinalizer: children.length === 0,
    toDelete: children.filter((c) => !c.metadata.deletionTimestamp),
  };
}

/**
 * Writes a finalizers patch; the next reconcile waits until the cache has seen it (or, when it removed the last
 * finalizer of a deleting object, the object gone), so it does not repeat it. Returns the object as written.
 */
export async function patchFinalizers<T extends KubeObject>(
  client: Client,
  ctx: ReconcileContext,
  obj: T,
  patch: FinalizersPatch,
): Promise<T> {
  const written = await client.patch<T>(refOf(obj), 'merge', patch);
  deferUntilCached(ctx, obj, written);
  return written;
}
