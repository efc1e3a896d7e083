// Cluster API's consistency store (util/controller/consistency.go, from kube's pkg/controller/util/consistency): a
// reconciler records the resourceVersion of each object it wrote on behalf of the object it reconciles; the next
// reconcile of that object waits (requeued, no worker held) until the cache's informer for the written kind has seen
// that resourceVersion, so it never acts on its own stale writes (e.g. creates Machines again).
/** What the store reads of a cache (an InformerCache): the newest resourceVersion its informer of a kind has seen. */
export interface InformerSource {
  informerFor(apiVersion: string, kind: string): { lastResourceVersion(): string | undefined };
}

/** The kind of a written object, and the cache whose informer must catch up (default: the controller's). */
export interface WrittenKind {
  apiVersion: string;
  kind: string;
  cache?: InformerSource;
}

/** A written kind whose informer has not yet seen the written resourceVersion (upstream consistencyError). */
export interface ConsistencyError {
  apiVersion: string;
  kind: string;
  wroteRV: string;
  /** The informer's last seen resourceVersion; '' before it synced. */
  readRV: string;
}

export class InvalidResourceVersionError extends Error {
  constructor(readonly resourceVersion: string) {
    super(`resource version is not well formed: ${resourceVersion}`);
  }
}

const WELL_FORMED = /^[1-9][0-9]*$/;

/**
 * -1, 0 or 1 as a is older than, as new as, or newer than b (k8s.io/apimachinery/pkg/util/resourceversion
 * CompareResourceVersion). Only positive integers without leading zeros compare; anything else throws.
 */
export function compareResourceVersion(a: string, b: string): number {
  if (!WELL_FORMED.test(a)) throw new InvalidResourceVersionError(a);
  if (!WELL_FORMED.test(b)) throw new InvalidResourceVersionError(b);
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

interface Written {
  kind: WrittenKind;
  rv: string;
}

class OwnerRecord {
  /** Per cache, per apiVersion/kind: the newest resourceVersion written. */
  readonly versions = new Map<InformerSource | undefined, Map<string, Written>>();
  constructor(readonly uid: string) {}

  wroteAt(kind: WrittenKind, rv: string): void {
    let byKind = this.versions.get(kind.cache);
    if (!byKind) this.versions.set(kind.cache, (byKind = new Map()));
    const key = `${kind.apiVersion}/${kind.kind}`;
    const prev = byKind.get(key);
    if (prev && newerOrEqual(prev.rv, rv)) return;
    byKind.set(key, { kind, rv });
  }

  *entries(): Iterable<Written> {
    for (const byKind of this.versions.values()) yield* byKind.values();
  }
}

/** True when a is at least as new as b; false when they do not compare (the newer write then replaces it, as upstream). */
function newerOrEqual(a: string, b: string): boolean {
  try {
    return compareResourceVersion(a, b) >= 0;
  } catch {
    return false;
  }
}

/** Written resourceVersions per reconciled object (its request key). */
export class ConsistencyStore {
  private readonly writes = new Map<string, OwnerRecord>();

  constructor(private readonly cache: InformerSource) {}

  /**
   * Records that the reconcile of `owner` (uid `ownerUid`) wrote an object of `kind` at `rv`. A record for another uid
   * (the owner was deleted and created again) is replaced.
   */
  wroteAt(owner: string, ownerUid: string, kind: WrittenKind, rv: string): void {
    let record = this.writes.get(owner);
    if (!record || record.uid !== ownerUid) this.writes.set(owner, (record = new OwnerRecord(ownerUid)));
    record.wroteAt(kind, rv);
  }

  /** Drops the owner's record if its uid matches `ownerUid`, or whatever its uid when `ownerUid` is empty. */
  clear(owner: string, ownerUid = ''): void {
    const record = this.writes.get(owner);
    if (record && (!ownerUid || record.uid === ownerUid)) this.writes.delete(owner);
  }

  /**
   * The written kinds whose informer is behind the owner's writes; none when the cache has caught up, and then the
   * record is dropped. Informers that do not exist yet are created (and start when their cache runs).
   */
  ensureReady(owner: string): ConsistencyError[] {
    const record = this.writes.get(owner);
    if (!record) return [];
    const errors: ConsistencyError[] = [];
    for (const { kind, rv } of record.entries()) {
      const readRV = (kind.cache ?? this.cache).informerFor(kind.apiVersion, kind.kind).lastResourceVersion() ?? '';
      const stale = { apiVersion: kind.apiVersion, kind: kind.kind, wroteRV: rv, readRV };
      // Informers created by a reconcile may not have synced yet: wait for them.
      if (!readRV) errors.push(stale);
      else if (compareOrZero(rv, readRV) > 0) errors.push(stale);
    }
    if (errors.length === 0) this.clear(owner, record.uid);
    return errors;
  }

  /** Reconciled objects with a record (for tests and metrics). */
  size(): number {
    return this.writes.size;
  }
}

/** A malformed version cannot be compared: treated as caught up so that it never blocks reconciles. */
function compareOrZero(a: string, b: string): number {
  try {
    return compareResourceVersion(a, b);
  } catch {
    return 0;
  }
}
