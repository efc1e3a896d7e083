// Memo of "this caller's intent for this object, built from these inputs, was last proven a no-op by request-cache
// entry X". A reconcile that re-applies the same intent to every child (the MachineSet's syncMachines, every reconcile,
// every Machine) can then skip building, preparing and hashing the intent and digesting the object's owned fields: it
// looks entry X up in the request cache instead, so TTL, eviction and hit/miss metrics stay the request cache's.
// Correct only when `inputs` determines the intent and the object's state (include its resourceVersion).

export interface IntentMemoKey {
  /** The object, e.g. its uid. */
  object: string;
  /** Everything the intent is computed from, the object's resourceVersion included. */
  inputs: string;
  /** Kind of the object (request-cache metrics label). */
  kind: string;
}

/**
 * The memo key of an intent for `obj` computed from `inputs`: the object by uid (kind/namespace/name before it has
 * one), the inputs with the object's resourceVersion, so any change of the object misses the memo.
 */
export function intentMemoKey(
  obj: { kind: string; metadata: { uid?: string; namespace?: string; name?: string; resourceVersion?: string } },
  inputs: string,
): IntentMemoKey {
  const m = obj.metadata;
  return {
    object: m.uid ?? `${obj.kind}/${m.namespace ?? ''}/${m.name}`,
    inputs: `${m.resourceVersion}/${inputs}`,
    kind: obj.kind,
  };
}

export class IntentMemo {
  /** object → inputs and the request-cache key that answered; insertion order = least recently used first. */
  private readonly entries = new Map<string, { inputs: string; requestId: string }>();

  constructor(private readonly maxEntries: number) {}

  /** The request-cache key recorded for `key.object` with exactly `key.inputs`, if any. */
  requestIdFor(key: IntentMemoKey): string | undefined {
    const e = this.entries.get(key.object);
    return e && e.inputs === key.inputs ? e.requestId : undefined;
  }

  remember(key: IntentMemoKey, requestId: string): void {
    this.entries.delete(key.object);
    this.entries.set(key.object, { inputs: key.inputs, requestId });
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
  }

  forget(key: IntentMemoKey): void {
    this.entries.delete(key.object);
  }

  get size(): number {
    return this.entries.size;
  }
}
