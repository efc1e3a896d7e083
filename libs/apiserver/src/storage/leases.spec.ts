import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from './store';

const HOUR = 3_600_000;
const obj =
  (name: string, extra: Record<string, unknown> = {}) =>
  (rev: number) => ({ metadata: { name, resourceVersion: String(rev), ...extra } });

describe('Store leases', () => {
  let t = 0;
  const now = () => t;
  const store = (path = ':memory:') => new Store({ path, leases: { ttlMs: { '/events': HOUR }, now } });
  beforeEach(() => (t = Date.parse('2026-01-01T00:00:00Z')));

  it('grants a lease on create and renews it on each update that writes', () => {
    const s = store();
    s.put('/events', 'ns', 'created', obj('created'));
    s.put('/events', 'ns', 'updated', obj('updated'));
    s.put('/configmaps', 'ns', 'no-ttl', obj('no-ttl'));
    t += 50 * 60_000;
    s.put('/events', 'ns', 'updated', obj('updated', { labels: { count: '2' } }));
    t += 10 * 60_000 - 1;
    expect(s.expiredKeys()).toEqual([]);
    t += 1;
    expect(s.expiredKeys()).toEqual(['/events/ns/created']);
    t += 50 * 60_000;
    expect(s.expiredKeys()).toEqual(['/events/ns/created', '/events/ns/updated']);
    s.close();
  });

  it('does not renew on a no-op update (nothing is written, as kube skips the etcd write)', () => {
    const s = store();
    s.put('/events', 'ns', 'a', obj('a'));
    t += HOUR - 1;
    s.put('/events', 'ns', 'a', obj('a'), () => true);
    t += 1;
    expect(s.expiredKeys()).toEqual(['/events/ns/a']);
    s.close();
  });

  it('revokes the lease of a deleted object', () => {
    const s = store();
    s.put('/events', 'ns', 'a', obj('a'));
    s.delete('/events/ns/a', (_rev, last) => last);
    t += 2 * HOUR;
    expect(s.expiredKeys()).toEqual([]);
    // Created again: a lease from its new create, not the old one.
    s.put('/events', 'ns', 'a', obj('a'));
    expect(s.expiredKeys()).toEqual([]);
    s.close();
  });

  it('keeps expiry times across reopen, and gives objects stored without a lease one from the reopen', () => {
    const dir = mkdtempSync(join(tmpdir(), 'leases-'));
    try {
      const path = join(dir, 'db.sqlite');
      const withoutTtl = new Store({ path });
      withoutTtl.put('/events', 'ns', 'before-leases', obj('before-leases'));
      withoutTtl.close();
      t += 30 * 60_000;
      const s1 = store(path);
      s1.put('/events', 'ns', 'leased', obj('leased'));
      s1.close();
      t += HOUR;
      const s2 = store(path);
      expect(s2.expiredKeys()).toEqual(['/events/ns/before-leases', '/events/ns/leased']);
      s2.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('gives nothing a lease without a TTL', () => {
    const s = new Store({ path: ':memory:', leases: { ttlMs: { '/events': 0 }, now } });
    s.put('/events', 'ns', 'a', obj('a'));
    t += 1000 * HOUR;
    expect(s.expiredKeys()).toEqual([]);
    s.close();
  });
});
