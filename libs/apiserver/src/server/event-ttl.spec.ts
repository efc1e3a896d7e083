import { Store, type StoreEvent } from '../storage';
import { deleteExpired, eventLeases, EVENTS_RESOURCE } from './event-ttl';

const MINUTE = 60_000;
const event = (name: string) => (rev: number) => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name, namespace: 'ns', resourceVersion: String(rev) },
  reason: 'Test',
});

describe('deleteExpired', () => {
  let t = 0;
  const now = () => t;
  beforeEach(() => (t = Date.parse('2026-01-01T00:00:00Z')));

  it('deletes the Events past their TTL, keeps the fresh ones, and watchers see DELETED at a new revision', () => {
    const s = new Store({ path: ':memory:', leases: eventLeases(60 * MINUTE, now) });
    s.put(EVENTS_RESOURCE, 'ns', 'old', event('old'));
    t += 30 * MINUTE;
    const fresh = s.put(EVENTS_RESOURCE, 'ns', 'fresh', event('fresh'));
    s.put('/configmaps', 'ns', 'cm', (rev) => ({ metadata: { name: 'cm', resourceVersion: String(rev) } }));
    const seen: StoreEvent[] = [];
    s.watch(EVENTS_RESOURCE, s.currentRevision(), (e) => seen.push(e));
    t += 31 * MINUTE;

    expect(deleteExpired(s)).toBe(1);
    expect(s.get(`${EVENTS_RESOURCE}/ns/old`)).toBeUndefined();
    expect(s.get(`${EVENTS_RESOURCE}/ns/fresh`)?.rev).toBe(fresh.rev);
    expect(s.get('/configmaps/ns/cm')).toBeDefined();
    expect(seen.map((e) => [e.type, e.data.metadata.name, e.data.metadata.resourceVersion])).toEqual([
      ['DELETED', 'old', String(s.currentRevision())],
    ]);
    expect(deleteExpired(s)).toBe(0);

    t += 30 * MINUTE;
    expect(deleteExpired(s)).toBe(1);
    expect(s.list(EVENTS_RESOURCE, 'ns')).toEqual([]);
    s.close();
  });

  it('keeps every Event with a TTL of 0', () => {
    const s = new Store({ path: ':memory:', leases: eventLeases(0, now) });
    s.put(EVENTS_RESOURCE, 'ns', 'a', event('a'));
    t += 1000 * 60 * MINUTE;
    expect(deleteExpired(s)).toBe(0);
    expect(s.list(EVENTS_RESOURCE, 'ns')).toHaveLength(1);
    s.close();
  });

  it('stores both Event APIs as core Events: one resource to expire', () => {
    expect(EVENTS_RESOURCE).toBe('/events');
  });
});
