import type { KubeObject } from '@capi/apimachinery';
import type { ObjectRef } from '../client/types';

// This process's writes to an object that have not been answered yet. A patch whose body is built late (a
// PatchBuilder, guarded by the resourceVersion it reads from the cache) waits for the writes to the same object that
// were sent before it, and for the cache to show their result: within one manager, controllers writing the same
// object back to back (a MachineSet's apply then annotation patch of a Machine, while the Machine controller patches
// its status) otherwise meet as a 409 whenever the cache lags the earlier write.

/** How long a late-built patch waits for the cache to show the earlier writes; past it the patch goes as it is. */
export const EARLIER_WRITES_CACHE_WAIT_MS = 5_000;

export class InFlightWrites {
  /** Per object: the pending writes, each resolving to the resourceVersion it produced (undefined when it failed). */
  private readonly pending = new Map<string, Set<Promise<string | undefined>>>();

  /** Tracks `write` (to the object `ref`) until it settles; returns it unchanged. */
  track<T>(ref: ObjectRef, write: Promise<T>): Promise<T> {
    const key = keyOf(ref);
    const settled = write.then(
      (out) => (out as KubeObject | undefined)?.metadata?.resourceVersion,
      () => undefined,
    );
    let set = this.pending.get(key);
    if (!set) this.pending.set(key, (set = new Set()));
    set.add(settled);
    void settled.then(() => {
      set.delete(settled);
      if (set.size === 0 && this.pending.get(key) === set) this.pending.delete(key);
    });
    return write;
  }

  /** The writes to `ref` pending now; the returned promise resolves to the resourceVersions they produced. */
  before(ref: ObjectRef): Promise<(string | undefined)[]> | undefined {
    const set = this.pending.get(keyOf(ref));
    return set?.size ? Promise.all([...set]) : undefined;
  }
}

function keyOf(ref: ObjectRef): string {
  return `${ref.apiVersion}/${ref.kind}/${ref.namespace ?? ''}/${ref.name}`;
}
