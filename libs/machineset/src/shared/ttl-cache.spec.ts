import { TtlCache } from './ttl-cache';

describe('TtlCache', () => {
  it('returns values until their TTL passes, then forgets them', () => {
    let now = 1000;
    const cache = new TtlCache<boolean>(100, () => now);
    cache.set('ns/old => ns/new', false);
    expect(cache.get('ns/old => ns/new')).toBe(false);
    now += 99;
    expect(cache.get('ns/old => ns/new')).toBe(false);
    now += 1;
    expect(cache.get('ns/old => ns/new')).toBeUndefined();
  });

  it('keys are independent and expired entries are purged on writes', () => {
    let now = 0;
    const cache = new TtlCache<number>(10, () => now);
    cache.set('a', 1);
    now = 5;
    cache.set('b', 2);
    now = 12;
    cache.set('c', 3);
    expect(cache.size).toBe(2);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')).toBe(2);
  });
});
