import { FakeClock } from '@capi/apimachinery/testing';
import { Registry } from 'prom-client';
import { DEFAULT_SSA_CACHE_TTL_MS, SsaCache } from './cache';

describe('SsaCache', () => {
  it('expires entries after 30 minutes by default', () => {
    const clock = new FakeClock(1_000);
    const cache = new SsaCache({ controllerName: 'machineset', clock });
    cache.add('k');
    clock.advance(DEFAULT_SSA_CACHE_TTL_MS - 1);
    expect(cache.has('k', 'Machine')).toBe(true);
    clock.advance(1);
    expect(cache.has('k', 'Machine')).toBe(false);
    expect(cache.size).toBe(0);
  });

  it('add() refreshes the TTL', () => {
    const clock = new FakeClock(1_000);
    const cache = new SsaCache({ controllerName: 'c', clock, ttlMs: 100 });
    cache.add('k');
    clock.advance(90);
    cache.add('k');
    clock.advance(90);
    expect(cache.peek('k')).toBe(true);
  });

  it('is bounded: the least recently used entry is evicted first', () => {
    const cache = new SsaCache({ controllerName: 'c', clock: new FakeClock(1_000), maxEntries: 2 });
    cache.add('a');
    cache.add('b');
    cache.add('a'); // a becomes most recent
    cache.add('c');
    expect(cache.size).toBe(2);
    expect(cache.peek('b')).toBe(false);
    expect(cache.peek('a')).toBe(true);
    expect(cache.peek('c')).toBe(true);
  });

  it('evicts expired entries before live ones when full', () => {
    const clock = new FakeClock(1_000);
    const cache = new SsaCache({ controllerName: 'c', clock, maxEntries: 2, ttlMs: 100 });
    cache.add('old');
    clock.advance(50);
    cache.add('live');
    clock.advance(60); // old expired, live not
    cache.add('new');
    expect(cache.peek('live')).toBe(true);
    expect(cache.peek('new')).toBe(true);
    expect(cache.size).toBe(2);
  });

  it('counts hits and misses by kind and controller', async () => {
    const registry = new Registry();
    const a = new SsaCache({ controllerName: 'machineset', registry, clock: new FakeClock(1_000) });
    const b = new SsaCache({ controllerName: 'machine', registry, clock: new FakeClock(1_000) });
    a.add('x');
    a.has('x', 'Machine');
    a.has('y', 'Machine');
    a.has('y', 'DockerMachine');
    b.has('x', 'Machine');
    const hits = await registry.getSingleMetric('capi_ssa_cache_hits_total')!.get();
    const misses = await registry.getSingleMetric('capi_ssa_cache_misses_total')!.get();
    expect(hits.values).toEqual([{ labels: { kind: 'Machine', controller: 'machineset' }, value: 1 }]);
    expect(misses.values).toEqual(
      expect.arrayContaining([
        { labels: { kind: 'Machine', controller: 'machineset' }, value: 1 },
        { labels: { kind: 'DockerMachine', controller: 'machineset' }, value: 1 },
        { labels: { kind: 'Machine', controller: 'machine' }, value: 1 },
      ]),
    );
  });

  it('rejects bad options', () => {
    expect(() => new SsaCache({ controllerName: '' })).toThrow(/controllerName/);
    expect(() => new SsaCache({ controllerName: 'c', maxEntries: 0 })).toThrow(/maxEntries/);
    expect(() => new SsaCache({ controllerName: 'c', ttlMs: -1 })).toThrow(/ttlMs/);
  });
});
