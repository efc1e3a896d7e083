import Database from 'better-sqlite3';
import { EventEmitter } from 'node:events';
import { deepFreeze, shareManagedFieldsTrees, type KubeObject } from '@capi/apimachinery';
import { Leases, type LeaseOptions } from './leases';
import { decodeRow, encodeRow } from './rows';
import { ensurePrivateDatabaseFiles } from './file-modes';

/** One stored object: `key` is "<group>/<resource>/<namespace>/<name>" (empty segments for core / cluster-scoped). */
export interface StoredObject {
  key: string;
  resource: string; // "<group>/<resource>"
  namespace: string;
  name: string;
  rev: number;
  data: Record<string, any>;
}

export type StoreEventType = 'ADDED' | 'MODIFIED' | 'DELETED';
export interface StoreEvent {
  rev: number;
  type: StoreEventType;
  resource: string;
  namespace: string;
  data: Record<string, any>;
  /** The state before a MODIFIED write (live events only; replayed history does not carry it). */
  prev?: Record<string, any>;
}

export class CompactedError extends Error {
  constructor(
    readonly requested: number,
    readonly oldest: number,
  ) {
    super(`too old resource version: ${requested} (${oldest})`);
  }
}

/** A write whose serialized object exceeds `maxValueBytes` (etcd's ErrRequestTooLarge); nothing was written. */
export class ValueTooLargeError extends Error {
  constructor(
    readonly bytes: number,
    readonly limit: number,
  ) {
    super(`value of ${bytes} bytes exceeds the limit of ${limit} bytes`);
  }
}

export interface StoreOptions {
  /** ":memory:" or a file path. */
  path: string;
  /** How many watch events are kept for resuming watches; older resourceVersions get 410 Gone. */
  historySize?: number;
  /** Largest serialized object a put may write (etcd's --max-request-bytes); unlimited when unset. */
  maxValueBytes?: number;
  /** How many parsed objects are kept in memory so reads do not JSON.parse the row again (default 100,000). */
  parsedCacheSize?: number;
  /** How much JSON text (UTF-16 code units) the parsed objects kept may add up to (default 32 Mi, see below). */
  parsedCacheChars?: number;
  /** Resources whose objects expire a time after their last write (etcd leases; see expiredKeys), and the clock. */
  leases?: LeaseOptions;
}

/**
 * The parsed-object cache's default budget: 32 Mi characters of JSON text (each object's text is kept with it for
 * responses, and its parsed form takes ~2-3x that in the V8 heap). That holds every object of a 1,000-Machine fleet
 * and, beyond, the recently written ones (a rollout batch's Machines and their objects); the rest is read back from
 * the row on use. Unbounded (100,000 objects), the cache kept a second and third copy of every row of a 10,000
 * Machine fleet in the heap (~80 KB per Machine).
 */
export const DEFAULT_PARSED_CACHE_CHARS = 32 * 2 ** 20;

/** The JSON text each stored (frozen) object was written as or read from; JSON.stringify(data) gives exactly it. */
const storedJsonOf = new WeakMap<object, string>();

/** The JSON text of an object handed out by the Store (a row's data or event's data), if known. */
export function storedJson(data: object): string | undefined {
  return storedJsonOf.get(data);
}

export function objectKey(resource: string, namespace: string, name: string): string {
  return `${resource}/${namespace}/${name}`;
}

/**
 * Kine-like storage on SQLite: a single global revision counter stamps every write, objects and a bounded event
 * history live in one database, and each write is committed synchronously (WAL + synchronous=FULL) before returning.
 */
export class Store {
  private readonly db: Database.Database;
  private readonly emitter = new EventEmitter();
  private readonly historySize: number;
  private readonly maxValueBytes: number;
  private revision: number;
  private compactedRev: number;
  private readonly stmts: ReturnType<Store['prepare']>;
  private readonly leases: Leases;
  /**
   * Parsed objects by key, exactly as committed (this Store is the database's only writer, so an entry is current
   * until the next put/delete of its key). Entries are deep-frozen: callers share them and must copy to change.
   */
  private readonly parsed = new Map<string, { obj: StoredObject; chars: number }>();
  private readonly parsedCacheSize: number;
  private readonly parsedCacheChars: number;
  private parsedChars = 0;
  /** Cached objects share equal managedFields trees (the fleet's Machines differ in them only by timestamps). */
  private readonly shareTrees = shareManagedFieldsTrees();

  constructor(opts: StoreOptions) {
    if (opts.path !== ':memory:') ensurePrivateDatabaseFiles(opts.path);
    this.db = new Database(opts.path);
    this.historySize = opts.historySize ?? 10000;
    this.maxValueBytes = opts.maxValueBytes ?? Infinity;
    this.parsedCacheSize = opts.parsedCacheSize ?? 100_000;
    this.parsedCacheChars = opts.parsedCacheChars ?? DEFAULT_PARSED_CACHE_CHARS;
    if (opts.path !== ':memory:') {
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = FULL');
      ensurePrivateDatabaseFiles(opts.path);
    }
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS objects (key TEXT PRIMARY KEY, resource TEXT NOT NULL, namespace TEXT NOT NULL,
        name TEXT NOT NULL, rev INTEGER NOT NULL, data TEXT NOT NULL);
      CREATE INDEX IF NOT EXISTS objects_resource ON objects(resource, namespace, name);
      CREATE TABLE IF NOT EXISTS owners (owner_uid TEXT NOT NULL, key TEXT NOT NULL, PRIMARY KEY (owner_uid, key));
      CREATE INDEX IF NOT EXISTS owners_key ON owners(key);
      CREATE TABLE IF NOT EXISTS events (rev INTEGER PRIMARY KEY, type TEXT NOT NULL, resource TEXT NOT NULL,
        namespace TEXT NOT NULL, data TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v INTEGER NOT NULL);
    `);
    this.emitter.setMaxListeners(0);
    this.stmts = this.prepare();
    this.leases = new Leases(this.db, opts.leases);
    this.revision = (this.stmts.getMeta.get('revision') as { v: number } | undefined)?.v ?? 1;
    this.compactedRev = (this.stmts.getMeta.get('compacted') as { v: number } | undefined)?.v ?? 0;
  }

  private prepare() {
    const db = this.db;
    return {
      getMeta: db.prepare('SELECT v FROM meta WHERE k = ?'),
      setMeta: db.prepare('INSERT INTO meta (k, v) VALUES (?, ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v'),
      get: db.prepare('SELECT * FROM objects WHERE key = ?'),
      // Key and revision only: the object comes from the parsed cache, the row's data is read on a miss.
      listAll: db.prepare('SELECT key, rev FROM objects WHERE resource = ? AND key > ? ORDER BY key'),
      listNs: db.prepare('SELECT key, rev FROM objects WHERE resource = ? AND namespace = ? AND key > ? ORDER BY key'),
      upsert: db.prepare(`INSERT INTO objects (key, resource, namespace, name, rev, data) VALUES (?, ?, ?, ?, ?, ?)
        ON CONFLICT(key) DO UPDATE SET rev = excluded.rev, data = excluded.data`),
      del: db.prepare('DELETE FROM objects WHERE key = ?'),
      delOwners: db.prepare('DELETE FROM owners WHERE key = ?'),
      addOwner: db.prepare('INSERT OR IGNORE INTO owners (owner_uid, key) VALUES (?, ?)'),
      dependents: db.prepare(
        'SELECT o.key, o.rev FROM owners w JOIN objects o ON o.key = w.key WHERE w.owner_uid = ? ORDER BY o.key',
      ),
      addEvent: db.prepare('INSERT INTO events (rev, type, resource, namespace, data) VALUES (?, ?, ?, ?, ?)'),
      eventsSince: db.prepare('SELECT * FROM events WHERE rev > ? AND resource = ? ORDER BY rev'),
      compact: db.prepare('DELETE FROM events WHERE rev <= ?'),
    };
  }

  /** The current (latest committed) revision. */
  currentRevision(): number {
    return this.revision;
  }

  /** The stored object (deep-frozen, shared with other readers: copy before changing it). */
  get(key: string): StoredObject | undefined {
    const hit = this.parsed.get(key);
    if (hit) return hit.obj;
    const row = this.stmts.get.get(key) as any;
    return row ? this.remember(...toStored(row)) : undefined;
  }

  /** The object of a (key, rev) row from the cache, read and parsed on a miss. */
  private resolve(key: string, rev: number): StoredObject {
    const hit = this.parsed.get(key);
    if (hit && hit.obj.rev === rev) return hit.obj;
    const row = this.stmts.get.get(key) as any;
    return this.remember(...toStored(row));
  }

  /** Caches `obj` (its JSON text `chars` long) as the latest entry, evicting the oldest beyond the bounds. */
  private remember(obj: StoredObject, chars: number): StoredObject {
    this.shareTrees(obj.data as KubeObject);
    deepFreeze(obj);
    this.forget(obj.key); // re-inserted last: the oldest entry is evicted first
    this.parsed.set(obj.key, { obj, chars });
    this.parsedChars += chars;
    while (
      this.parsed.size > 1 &&
      (this.parsed.size > this.parsedCacheSize || this.parsedChars > this.parsedCacheChars)
    ) {
      this.forget(this.parsed.keys().next().value!);
    }
    return obj;
  }

  private forget(key: string): void {
    const entry = this.parsed.get(key);
    if (!entry) return;
    this.parsed.delete(key);
    this.parsedChars -= entry.chars;
  }

  /** How many parsed objects are cached, and their JSON text's length (memory accounting, tests). */
  parsedCacheUsage(): { objects: number; chars: number } {
    return { objects: this.parsed.size, chars: this.parsedChars };
  }

  /** The database's size (page_count × page_size: for ":memory:" what SQLite holds outside the V8 heap). */
  databaseBytes(): number {
    return (
      (this.db.pragma('page_count', { simple: true }) as number) *
      (this.db.pragma('page_size', { simple: true }) as number)
    );
  }

  /** Objects of one resource (optionally one namespace) with key > afterKey, in key order. */
  list(resource: string, namespace: string | undefined, afterKey = '', limit?: number): StoredObject[] {
    const it =
      namespace === undefined
        ? this.stmts.listAll.iterate(resource, afterKey)
        : this.stmts.listNs.iterate(resource, namespace, afterKey);
    const out: StoredObject[] = [];
    for (const row of it as Iterable<{ key: string; rev: number }>) {
      out.push(this.resolve(row.key, row.rev));
      if (limit !== undefined && out.length >= limit) break;
    }
    return out;
  }

  /** Objects that list `ownerUid` in their ownerReferences. */
  dependents(ownerUid: string): StoredObject[] {
    return (this.stmts.dependents.all(ownerUid) as { key: string; rev: number }[]).map((r) =>
      this.resolve(r.key, r.rev),
    );
  }

  /**
   * Writes an object; `build` receives the new revision (to stamp metadata.resourceVersion) and returns the object.
   * Commits synchronously, then notifies watchers. When `unchanged(previous, next)` says the write changes nothing,
   * nothing is written and the stored object is returned as it is (no new revision, no event).
   */
  put(
    resource: string,
    namespace: string,
    name: string,
    build: (rev: number) => Record<string, any>,
    unchanged?: (previous: Record<string, any>, next: Record<string, any>) => boolean,
  ): StoredObject {
    const key = objectKey(resource, namespace, name);
    let event: StoreEvent | undefined;
    let kept: StoredObject | undefined;
    let chars = 0;
    this.db.transaction(() => {
      const rev = this.revision + 1;
      const data = build(rev);
      const old = this.get(key);
      const prev = old?.data;
      if (old && unchanged?.(old.data, data)) {
        kept = old;
        return;
      }
      const json = JSON.stringify(data);
      chars = json.length;
      const bytes = Buffer.byteLength(json);
      if (bytes > this.maxValueBytes) throw new ValueTooLargeError(bytes, this.maxValueBytes);
      const value = encodeRow(json);
      this.stmts.upsert.run(key, resource, namespace, name, rev, value);
      this.leases.grant(key, resource);
      // The owners index changes only with the owner uids (most writes are status or spec changes).
      const owners = ownerUids(data);
      if (!prev || owners !== ownerUids(prev)) {
        this.stmts.delOwners.run(key);
        for (const uid of owners ? owners.split('\n') : []) this.stmts.addOwner.run(uid, key);
      }
      event = { rev, type: prev ? 'MODIFIED' : 'ADDED', resource, namespace, data, ...(prev ? { prev } : {}) };
      this.recordEvent(event, json, value);
    })();
    if (kept) return kept;
    // Cached only once committed: a write that threw (too large, a failed statement) left the old row in place.
    const stored = this.remember({ key, resource, namespace, name, rev: event!.rev, data: event!.data }, chars);
    this.emitter.emit('event', event!);
    return stored;
  }

  /** Removes an object; `build` gets the deletion revision and returns the final state reported to watchers. */
  delete(key: string, build: (rev: number, last: Record<string, any>) => Record<string, any>): StoreEvent | undefined {
    let event: StoreEvent | undefined;
    this.db.transaction(() => {
      const row = this.get(key);
      if (!row) return;
      const rev = this.revision + 1;
      const data = build(rev, row.data);
      this.stmts.del.run(key);
      this.stmts.delOwners.run(key);
      this.leases.revoke(key);
      event = { rev, type: 'DELETED', resource: row.resource, namespace: row.namespace, data };
      const json = JSON.stringify(data);
      this.recordEvent(event, json, encodeRow(json));
    })();
    if (event) {
      this.forget(key);
      deepFreeze(event.data);
      this.emitter.emit('event', event);
    }
    return event;
  }

  /** Records an event whose object is `json`, stored as `value` (encodeRow(json)). */
  private recordEvent(ev: StoreEvent, json: string, value: string | Buffer): void {
    storedJsonOf.set(ev.data, json);
    this.stmts.addEvent.run(ev.rev, ev.type, ev.resource, ev.namespace, value);
    this.revision = ev.rev;
    this.stmts.setMeta.run('revision', ev.rev);
    if (ev.rev - this.compactedRev > this.historySize * 1.1) {
      this.compactedRev = ev.rev - this.historySize;
      this.stmts.compact.run(this.compactedRev);
      this.stmts.setMeta.run('compacted', this.compactedRev);
    }
  }

  /**
   * Events of `resource` after `sinceRev`, then live ones, delivered to `onEvent` in revision order.
   * Throws CompactedError when history no longer reaches back to `sinceRev`.
   */
  watch(resource: string, sinceRev: number, onEvent: (ev: StoreEvent) => void): () => void {
    if (sinceRev < this.compactedRev) throw new CompactedError(sinceRev, this.compactedRev);
    let last = sinceRev;
    for (const row of this.stmts.eventsSince.iterate(sinceRev, resource) as Iterable<any>) {
      last = row.rev;
      onEvent({
        rev: row.rev,
        type: row.type,
        resource: row.resource,
        namespace: row.namespace,
        data: JSON.parse(decodeRow(row.data)),
      });
    }
    const listener = (ev: StoreEvent) => {
      if (ev.resource !== resource || ev.rev <= last) return;
      last = ev.rev;
      onEvent(ev);
    };
    this.emitter.on('event', listener);
    return () => this.emitter.off('event', listener);
  }

  /** Subscribes to every committed event (used by the garbage collector and CRD registry). */
  onAny(listener: (ev: StoreEvent) => void): () => void {
    this.emitter.on('event', listener);
    return () => this.emitter.off('event', listener);
  }

  /** Keys of the objects whose lease has run out (see StoreOptions.leases): theirs to delete, as etcd would. */
  expiredKeys(): string[] {
    return this.leases.expired();
  }

  oldestResumableRevision(): number {
    return this.compactedRev;
  }

  close(): void {
    this.emitter.removeAllListeners();
    this.parsed.clear();
    this.parsedChars = 0;
    this.db.close();
  }
}

/** The owner uids of an object, in order, as one comparable string ('' when none). */
function ownerUids(data: Record<string, any>): string {
  const refs = data.metadata?.ownerReferences;
  if (!Array.isArray(refs) || refs.length === 0) return '';
  return refs
    .map((r: { uid?: string }) => r?.uid)
    .filter((u) => !!u)
    .join('\n');
}

/** A row as a StoredObject, with its JSON text's length. */
function toStored(row: any): [StoredObject, number] {
  const json = decodeRow(row.data);
  const data = JSON.parse(json);
  // The row is JSON.stringify's output (put writes nothing else), so re-stringifying the parse gives the same text.
  storedJsonOf.set(data, json);
  return [
    { key: row.key, resource: row.resource, namespace: row.namespace, name: row.name, rev: row.rev, data },
    json.length,
  ];
}
