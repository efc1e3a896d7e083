// Events do not pile up: kube-apiserver keeps an Event for --event-ttl after its last write (an etcd lease, see
// storage/leases.ts) and etcd deletes it then. Here the Store keeps the leases and deleteExpired() is the deletion,
// run periodically by whoever hosts the server (the manager's embedded default schedules it).
import type { LeaseOptions, Store } from '../storage';
import { storageResource } from './registry';

/** kube-apiserver's --event-ttl default (pkg/controlplane/apiserver/options/options.go: EventTTL 1 h). */
export const DEFAULT_EVENT_TTL_MS = 60 * 60 * 1000;

/** Where Events are stored: core Events, which events.k8s.io/v1 Events are too (registry.ts storedAs). */
export const EVENTS_RESOURCE = storageResource({ group: '', plural: 'events' });

/** The Store's leases for an Event TTL; 0 keeps Events (kube attaches no etcd lease for a TTL of 0). */
export function eventLeases(ttlMs: number, now?: () => number): LeaseOptions {
  return { ttlMs: ttlMs > 0 ? { [EVENTS_RESOURCE]: ttlMs } : {}, now };
}

/**
 * Deletes every object whose lease has run out, as etcd deletes a key when its lease expires. Each is an ordinary
 * delete: a new revision, and watchers get DELETED with the object's last state at that resourceVersion. Returns how
 * many were deleted.
 */
export function deleteExpired(store: Store): number {
  let deleted = 0;
  for (const key of store.expiredKeys()) {
    const ev = store.delete(key, (rev, last) => ({
      ...last,
      metadata: { ...last.metadata, resourceVersion: String(rev) },
    }));
    if (ev) deleted++;
  }
  return deleted;
}
