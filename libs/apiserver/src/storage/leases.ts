// Object leases, as etcd keeps them for kube-apiserver: the Event registry's TTLFunc gives every Event a lease of
// --event-ttl, granted on create and granted anew on each update that writes (pkg/registry/core/event/storage/
// storage.go; the etcd3 store attaches it, staging/src/k8s.io/apiserver/pkg/storage/etcd3/store.go), and the object
// goes when its lease runs out. A no-op update writes nothing, so it does not renew the lease (kube skips the etcd
// write too). The leases live in the database with the objects, so a restarted server keeps their expiry times.
import type Database from 'better-sqlite3';

export interface LeaseOptions {
  /** Time to live (ms) per storage resource ("<group>/<resource>"); resources not listed, or 0, never expire. */
  ttlMs?: Readonly<Record<string, number>>;
  /** The lease clock, epoch milliseconds (default Date.now). */
  now?: () => number;
}

export class Leases {
  private readonly ttlMs: Readonly<Record<string, number>>;
  private readonly now: () => number;
  private readonly stmts;

  constructor(db: Database.Database, opts: LeaseOptions = {}) {
    this.ttlMs = opts.ttlMs ?? {};
    this.now = opts.now ?? Date.now;
    db.exec(`
      CREATE TABLE IF NOT EXISTS leases (key TEXT PRIMARY KEY, expires INTEGER NOT NULL);
      CREATE INDEX IF NOT EXISTS leases_expires ON leases(expires);
    `);
    this.stmts = {
      grant: db.prepare(
        'INSERT INTO leases (key, expires) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET expires = excluded.expires',
      ),
      revoke: db.prepare('DELETE FROM leases WHERE key = ?'),
      expired: db.prepare('SELECT key FROM leases WHERE expires <= ? ORDER BY expires, key'),
      // Objects stored without a lease (a database written before leases, or while the TTL was 0) get one from now.
      backfill: db.prepare('INSERT OR IGNORE INTO leases (key, expires) SELECT key, ? FROM objects WHERE resource = ?'),
    };
    for (const [resource, ttl] of Object.entries(this.ttlMs))
      if (ttl > 0) this.stmts.backfill.run(this.now() + ttl, resource);
  }

  /** In the write's transaction: (re)grants the lease of `key` when its resource has a TTL. */
  grant(key: string, resource: string): void {
    const ttl = this.ttlMs[resource];
    if (ttl > 0) this.stmts.grant.run(key, this.now() + ttl);
  }

  /** In the delete's transaction. */
  revoke(key: string): void {
    this.stmts.revoke.run(key);
  }

  /** Keys whose lease has run out, soonest-expired first. */
  expired(): string[] {
    return (this.stmts.expired.all(this.now()) as { key: string }[]).map((r) => r.key);
  }
}
