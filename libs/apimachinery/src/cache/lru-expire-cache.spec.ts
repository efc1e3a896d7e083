import { FakeClock } from '../testing/fake-clock';
import { LRUExpireCache } from './lru-expire-cache';

describe('LRUExpireCache', () => {
  it('returns values until their TTL passes, then forgets them', () => {
    const clock = new FakeClock(1000);
    const cache = new LRUExpireCache<boolean>({ max: 10, clock });
    cache.add('ns/old => ns/new', false, 100);
    expect(cache.get('ns/old => ns/new')).toBe(false);
    clock.advance(99);
    expect(cache.get('ns/old => ns/new')).toBe(false);
    clock.advance(1);
    expect(cache.get('ns/old => ns/new')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('keys are independent and expired entries are purged on writes', () => {
    const clock = new FakeClock(0);
    const cache = new LRUExpireCache<number>({ max: 10, clock });
    cache.add('a', 1, 10);
    clock.advance(5);
    cache.add('b', 2, 10);
    clock.advance(7);
    cache.add('c', 3, 10);
    expect(cache.size).toBe(2);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')).toBe(2);
  });

  it('is bounded: the entry added longest ago goes first; re-adding makes an entry the newest', () => {
    const cache = new LRUExpireCache<string>({ max: 2, clock: new FakeClock() });
    cache.add('a', 'A', 1000);
    cache.add('b', 'B', 1000);
    cache.add('a', 'A2', 1000);
    cache.get('b'); // reads do not reorder
    cache.add('c', 'C', 1000);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe('A2');
    expect(cache.get('c')).toBe('C');
  });

  it('purgeExpired drops expired entries behind a live one; remove and clear', () => {
    const clock = new FakeClock(0);
    const cache = new LRUExpireCache<number>({ max: 10, clock });
    cache.add('long', 1, 100);
    cache.add('short', 2, 10);
    clock.advance(50);
    expect(cache.size).toBe(2);
    expect(cache.purgeExpired()).toBe(1);
    expect(cache.get('long')).toBe(1);
    cache.remove('long');
    expect(cache.size).toBe(0);
    cache.add('x', 1, 10);
    cache.clear();
    expect(cache.size).toBe(0);
  });

  it('takes memory per entry, not for its bound up front (a big bound costs nothing while the cache is small)', () => {
    const before = process.memoryUsage().arrayBuffers;
    const cache = new LRUExpireCache<number>({ max: 1_000_000 });
    // Preallocating for 1,000,000 entries (as lru-cache does for its `max`) would be 4 MB typed arrays at least.
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(1 << 20);
    cache.add('a', 1, 1000);
    expect(cache.get('a')).toBe(1);
  });

  it('rejects a bad bound', () => {
    expect(() => new LRUExpireCache({ max: 0 })).toThrow(/max/);
  });
});
