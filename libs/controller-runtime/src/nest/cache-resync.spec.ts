import { SchedulerRegistry } from '@nestjs/schedule';
import { InformerCache } from '../cache/cache';
import type { KubeObject } from '@capi/apimachinery';
import type { Manager } from '../manager/manager';
import { listOnlyClient } from '../testing/list-only-client';
import { CacheResync, resyncJobName } from './cache-resync';

const widget: KubeObject = {
  apiVersion: 'test.capi.io/v1',
  kind: 'Widget',
  metadata: { name: 'a', namespace: 'ns', resourceVersion: '1' },
};

describe('CacheResync', () => {
  let cache: InformerCache;
  let scheduler: SchedulerRegistry;
  let added: InformerCache[];
  let addedListeners: ((c: InformerCache) => void)[];
  /** The manager's side CacheResync uses: its cache, the caches added to it, and a listener for more. */
  const manager = () =>
    ({
      cache,
      caches: () => [cache, ...added],
      onCacheAdded: (l: (c: InformerCache) => void) => (addedListeners.push(l), () => undefined),
    }) as unknown as Manager;
  const resyncOf = (syncPeriodMs?: number) =>
    new CacheResync(manager(), scheduler, syncPeriodMs === undefined ? {} : { syncPeriodMs });

  beforeEach(() => {
    cache = new InformerCache(listOnlyClient([widget]));
    scheduler = new SchedulerRegistry();
    added = [];
    addedListeners = [];
  });
  afterEach(async () => {
    jest.useRealTimers();
    scheduler.getIntervals().forEach((n) => scheduler.deleteInterval(n));
    await cache.stop();
  });

  it('schedules one job per informer, those the cache has and those it creates later; removes them on shutdown', () => {
    cache.informerFor('test.capi.io/v1', 'Widget');
    const resync = resyncOf(600_000);
    resync.onApplicationBootstrap();
    expect(scheduler.getIntervals()).toEqual([resyncJobName('test.capi.io/v1', 'Widget')]);
    cache.informerFor('v1', 'Secret');
    cache.informerFor('test.capi.io/v1', 'Widget');
    expect(scheduler.getIntervals()).toEqual(['cache-resync:test.capi.io/v1/Widget', 'cache-resync:v1/Secret']);
    resync.onApplicationShutdown();
    expect(scheduler.getIntervals()).toEqual([]);
    cache.informerFor('v1', 'ConfigMap');
    expect(scheduler.getIntervals()).toEqual([]);
  });

  it('follows the caches added to the manager, before and after bootstrap, under their names', async () => {
    const partial = new InformerCache(listOnlyClient([]), { name: 'partial-secret' });
    const unnamed = new InformerCache(listOnlyClient([]));
    added.push(partial);
    partial.informerFor('v1', 'Secret');
    cache.informerFor('v1', 'Secret');
    const resync = resyncOf(600_000);
    resync.onApplicationBootstrap();
    added.push(unnamed);
    addedListeners.forEach((l) => l(unnamed));
    unnamed.informerFor('v1', 'Secret');
    partial.informerFor('v1', 'ConfigMap');
    expect(scheduler.getIntervals().sort()).toEqual([
      'cache-resync(cache-1):v1/Secret',
      'cache-resync(partial-secret):v1/ConfigMap',
      'cache-resync(partial-secret):v1/Secret',
      'cache-resync:v1/Secret',
    ]);
    resync.onApplicationShutdown();
    expect(scheduler.getIntervals()).toEqual([]);
    await Promise.all([partial.stop(), unnamed.stop()]);
  });

  it('schedules nothing with a sync period of 0 (client-go never resyncs then)', () => {
    cache.informerFor('test.capi.io/v1', 'Widget');
    resyncOf(0).onApplicationBootstrap();
    expect(scheduler.getIntervals()).toEqual([]);
  });

  it("defaults to controller-runtime's 10 hours", () => {
    jest.useFakeTimers();
    const informer = cache.informerFor('test.capi.io/v1', 'Widget');
    const resync = jest.spyOn(informer, 'resync');
    resyncOf().onApplicationBootstrap();
    jest.advanceTimersByTime(0.9 * 10 * 3_600_000 - 1);
    expect(resync).not.toHaveBeenCalled();
    jest.advanceTimersByTime(0.2 * 10 * 3_600_000);
    expect(resync).toHaveBeenCalledTimes(1);
  });

  it('each job resyncs its informer once per jittered period (fake timers: 1.1 periods hold exactly one)', () => {
    jest.useFakeTimers();
    const widgets = cache.informerFor('test.capi.io/v1', 'Widget');
    resyncOf(600_000).onApplicationBootstrap();
    const secrets = cache.informerFor('v1', 'Secret');
    const calls = [jest.spyOn(widgets, 'resync'), jest.spyOn(secrets, 'resync')];
    jest.advanceTimersByTime(660_000);
    for (const c of calls) expect(c).toHaveBeenCalledTimes(1);
  });
});
